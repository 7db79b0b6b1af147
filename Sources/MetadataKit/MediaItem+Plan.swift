#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MediaItem {
    /// What ``save(options:)`` would do now, without writing anything: the
    /// fields that change, every raw item added, removed or changed (copies
    /// the format keeps in sync, ID3v1 updates, merged duplicates, frames
    /// stored in another encoding), values stored in another form, and how
    /// the file's bytes change.
    ///
    /// The file is parsed as the save would write it (from memory and the
    /// unchanged parts of the file) and the save's own check runs on that
    /// parse, so the plan lists what other readers will find.
    ///
    /// The file is read on a thread outside Swift's cooperative pool.
    ///
    /// - Throws: the ``MediaError`` ``save(options:)`` would refuse with before
    ///   writing (`notLoaded`, `invalidValue`, `unsupportedFeature`,
    ///   `fileChanged`, `verificationFailed`, …).
    public func plan(options: SaveOptions = SaveOptions()) async throws(MediaError) -> SavePlan {
        try await FileEditor.runBlocking { [self] () throws(MediaError) -> SavePlan in try planNow(options: options) }
    }

    /// ``plan(options:)`` on the calling thread.
    func planNow(options: SaveOptions) throws(MediaError) -> SavePlan {
        let save = try named { try prepareSave(options: options) }
        return try named {
            let source = try FileSource(path: path)
            guard source.snapshot == save.snapshot else {
                throw MediaError(.fileChanged, "the file changed on disk since it was loaded; load it again")
            }
            let layout = Self.layout(of: save.plan, size: source.size)
            let before = loadedItems
            var after = before
            if layout != .unchanged {
                let runs = save.plan.segments(originalSize: source.size)
                after = try save.check(FileSource(runs: runs, over: source)).parsed.items
            }
            let wanted = options.removesAllTags ? Metadata() : metadata
            let asLoaded = loadedMetadata
            let fieldChanges = wanted.fieldChanges(from: asLoaded)
            let customChanges = wanted.customFieldChanges(from: asLoaded)
            let readBack = Metadata(items: after, schema: schema)
            return SavePlan(
                fieldChanges: fieldChanges, customFieldChanges: customChanges,
                itemChanges: SavePlan.differences(from: before, to: after),
                conversions: Self.conversions(of: fieldChanges, readBack: readBack)
                    + Self.conversions(of: customChanges, readBack: readBack),
                changesChapters: hasChapterChanges, layout: layout,
                sizes: (source.size, save.plan.newSize(originalSize: source.size)), options: options, edit: save.plan)
        }
    }

    /// Carries out `plan`, made by ``plan(options:)`` of this item: the same
    /// save as ``save(options:)`` with the plan's options. Refused
    /// (`fileChanged`) when the item's edits or the file changed since the
    /// plan was made, so what was shown is what is written.
    public mutating func save(_ plan: SavePlan) async throws(MediaError) {
        self = try await Self.offloaded(self) { item throws(MediaError) in
            let save = try item.named { try item.prepareSave(options: plan.options) }
            guard let size = item.lastKnownSize,
                save.plan.segments(originalSize: size) == plan.edit.segments(originalSize: size)
            else {
                throw MediaError(
                    .fileChanged, "the save no longer matches its plan (the item or the file changed); plan it again",
                    path: item.path)
            }
            try item.carryOut(save, options: plan.options)
        }
    }

    /// How `plan` changes a file of `size` bytes.
    static func layout(of plan: FileEditPlan, size: Int64) -> SavePlan.Layout {
        switch plan {
        case .inPlace(let patches): return patches.allSatisfy(\.bytes.isEmpty) ? .unchanged : .sameSize
        case .patchedTail: return .newTail
        case .rewrite(let segments):
            return FileEditPlan.coalesced(segments) == [.original(offset: 0, length: size)] ? .unchanged : .newLayout
        }
    }

    /// Fields whose new value reads back in another form the save's check
    /// accepts (several values joined into one text).
    static func conversions(of changes: [SavePlan.FieldChange], readBack: Metadata) -> [String] {
        changes.compactMap { conversion($0.field.rawValue, wanted: $0.newValue, actual: readBack[$0.field]) }
    }

    /// ``conversions(of:readBack:)`` of custom fields.
    static func conversions(of changes: [SavePlan.CustomFieldChange], readBack: Metadata) -> [String] {
        changes.compactMap { conversion($0.name, wanted: $0.newValue, actual: readBack[custom: $0.name]) }
    }

    /// "NAME: 'wanted' is stored as 'actual'" when a text value reads back otherwise.
    private static func conversion(_ name: String, wanted: DisplayValue?, actual: DisplayValue?) -> String? {
        guard let wanted, wanted.artwork == nil, let actual, actual != wanted else { return nil }
        return "\(name): \(SavePlan.show(wanted)) is stored as \(SavePlan.show(actual))"
    }
}

extension SavePlan {
    /// The raw items that differ between two reads of a file, in the order
    /// of `after` (removed ones last, in the order of `before`). Items of one
    /// key that lost and gained values pair up as changes; a picture matches
    /// by what it is (type, MIME type, description, size), not where its
    /// bytes are stored.
    static func differences(from before: [MetadataItem], to after: [MetadataItem]) -> [ItemChange] {
        func slot(_ item: MetadataItem) -> String { item.keySpace.rawValue + "\u{0}" + item.key }
        func same(_ a: MetadataItem, _ b: MetadataItem) -> Bool {
            if a == b { return true }
            guard let mine = a.value.picture, let theirs = b.value.picture else { return false }
            return a.dataType == b.dataType && a.language == b.language && mine.mimeType == theirs.mimeType
                && mine.byteCount == theirs.byteCount && mine.pictureType == theirs.pictureType && mine.description == theirs.description
        }
        var unmatchedAfter = Array(repeating: true, count: after.count)
        var pool: [String: [Int]] = [:]
        for (index, item) in after.enumerated() { pool[slot(item), default: []].append(index) }
        var lost: [String: [MetadataItem]] = [:]
        var lostOrder: [MetadataItem] = []
        for item in before {
            if let position = pool[slot(item)]?.firstIndex(where: { unmatchedAfter[$0] && same(item, after[$0]) }) {
                unmatchedAfter[pool[slot(item)]![position]] = false
            } else {
                lost[slot(item), default: []].append(item)
                lostOrder.append(item)
            }
        }
        var changes: [ItemChange] = []
        var taken: [String: Int] = [:]
        for (index, item) in after.enumerated() where unmatchedAfter[index] {
            let key = slot(item)
            let used = taken[key, default: 0]
            if let old = lost[key], used < old.count {
                changes.append(.changed(from: old[used], to: item))
                taken[key] = used + 1
            } else {
                changes.append(.added(item))
            }
        }
        var removedSeen: [String: Int] = [:]
        for item in lostOrder {
            let key = slot(item)
            let seen = removedSeen[key, default: 0]
            removedSeen[key] = seen + 1
            if seen >= taken[key, default: 0] { changes.append(.removed(item)) }
        }
        return changes
    }
}
