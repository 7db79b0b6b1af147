/// What a save will do to a file, worked out before any byte is written:
/// the fields that change, every raw item the file will gain, lose or hold
/// differently (mirrored copies, ID3v1 updates, merged duplicates and
/// re-encoded frames included), values the format can only hold in another
/// form, and how the file's bytes change.
///
/// Made by ``MediaItem/plan(options:)``, which parses the file as the save
/// would write it (in memory; nothing is written) and runs the save's own
/// check on it, so a plan exists only for a save that would be carried out.
/// ``MediaItem/save(_:)`` carries out a plan, or refuses when the item or the
/// file changed since it was made.
///
/// ```swift
/// item.metadata.title = "New title"
/// let plan = try item.plan()
/// for change in plan.fieldChanges { print(change) }   // title: 'Old' → 'New title'
/// for change in plan.itemChanges { print(change) }
/// try await item.save(plan)
/// ```
public struct SavePlan: Sendable {
    /// A normalized field the save changes, as the caller asked.
    public struct FieldChange: Sendable, Hashable, CustomStringConvertible {
        /// The field.
        public var field: MetadataField
        /// Its value as loaded; nil when the file didn't hold it.
        public var oldValue: DisplayValue?
        /// The value asked for; nil when the field is removed.
        public var newValue: DisplayValue?

        /// "title: 'Old' → 'New'".
        public var description: String {
            "\(field.rawValue): \(SavePlan.show(oldValue)) → \(SavePlan.show(newValue))"
        }
    }

    /// A custom field (``MetadataSchema/registerField(_:keys:)``, read and set
    /// through ``Metadata/subscript(custom:)``) the save changes, as the
    /// caller asked. Apart from ``FieldChange``, whose ``FieldChange/field``
    /// is always a standard field.
    public struct CustomFieldChange: Sendable, Hashable, CustomStringConvertible {
        /// The custom field's name.
        public var name: String
        /// Its value as loaded; nil when the file didn't hold it.
        public var oldValue: DisplayValue?
        /// The value asked for; nil when the field is removed.
        public var newValue: DisplayValue?

        /// "energy: 'low' → 'high'".
        public var description: String {
            "\(name): \(SavePlan.show(oldValue)) → \(SavePlan.show(newValue))"
        }
    }

    /// A raw item the file gains, loses or holds differently after the save,
    /// found by comparing the items read from the file as it is with those
    /// read from the file as the save will write it.
    public enum ItemChange: Sendable, Hashable, CustomStringConvertible {
        /// An item the file will hold and doesn't now.
        case added(MetadataItem)
        /// An item the file holds and won't.
        case removed(MetadataItem)
        /// The one item of a key, with another value, language or encoding.
        case changed(from: MetadataItem, to: MetadataItem)

        /// "+ id3:TIT2 = New", "- itunes:©cmt", "id3:TIT2: 'Old' → 'New'".
        public var description: String {
            switch self {
            case .added(let item): return "+ \(SavePlan.name(item)) = \(SavePlan.show(item))"
            case .removed(let item): return "- \(SavePlan.name(item))"
            case .changed(let old, let new):
                let oldText = SavePlan.show(old)
                let newText = SavePlan.show(new)
                if oldText == newText, old.language == new.language {
                    return "\(SavePlan.name(new)): '\(newText)' stored as \(new.dataType.rawValue) (was \(old.dataType.rawValue))"
                }
                let language = old.language != new.language ? " (language \(old.language ?? "none") → \(new.language ?? "none"))" : ""
                return "\(SavePlan.name(new)): '\(oldText)' → '\(newText)'\(language)"
            }
        }
    }

    /// How the file's bytes change.
    public enum Layout: Sendable, Hashable {
        /// Nothing is written.
        case unchanged
        /// Bytes inside existing structures are overwritten; the size stays.
        case sameSize
        /// The file's end is rewritten in place (it grows or shrinks there).
        case newTail
        /// A new layout: made in place by inserting or removing filesystem
        /// blocks where the filesystem can, else written to a copy that
        /// replaces the file (``MediaItem/lastSavePath`` says which after the save).
        case newLayout
    }

    /// The standard fields that change, as asked, in ``MetadataField`` order
    /// (custom fields: ``customFieldChanges``).
    public internal(set) var fieldChanges: [FieldChange]
    /// The custom fields of the item's schema that change, as asked, by name.
    /// Their raw items are in ``itemChanges`` too.
    public internal(set) var customFieldChanges: [CustomFieldChange] = []
    /// Every raw item the save adds, removes or changes, as the file will
    /// read after it, in the file's item order.
    public internal(set) var itemChanges: [ItemChange]
    /// Values the format holds in another form than asked (several values
    /// stored as one joined text, for instance); the save's check accepts
    /// them, and a reader sees them so.
    public internal(set) var conversions: [String]
    /// Whether the chapters change.
    public internal(set) var changesChapters: Bool
    /// How the file's bytes change.
    public internal(set) var layout: Layout
    /// The file's size now, and after the save.
    public internal(set) var sizes: (before: Int64, after: Int64)
    /// The options the plan was made with.
    public let options: SaveOptions

    /// The edit the plan stands for, to tell at save time whether it still holds.
    let edit: FileEditPlan

    /// True when the save would write nothing.
    public var isEmpty: Bool { layout == .unchanged }

    /// "'Old'", "(none)", "image/png 1024 bytes".
    static func show(_ value: DisplayValue?) -> String {
        switch value {
        case nil: return "(none)"
        case .artwork(let pictures)?: return pictures.map { "\($0.mimeType) \($0.byteCount) bytes" }.joined(separator: ", ")
        case let value?: return "'\(value.text ?? "")'"
        }
    }

    /// An item's value as text: a picture by type and size, binary data by its type.
    static func show(_ item: MetadataItem) -> String {
        if let picture = item.value.picture { return "\(picture.mimeType) \(picture.byteCount) bytes" }
        return item.value.stringValue ?? "(\(item.dataType.rawValue))"
    }

    /// "id3:TIT2".
    static func name(_ item: MetadataItem) -> String { "\(item.keySpace.rawValue):\(item.key)" }
}

extension Metadata {
    /// The standard fields whose value differs from `before`'s, as changes
    /// from it, in ``MetadataField`` order.
    package func fieldChanges(from before: Metadata) -> [SavePlan.FieldChange] {
        differingFields(from: before).map { SavePlan.FieldChange(field: $0, oldValue: before[$0], newValue: self[$0]) }
    }

    /// The custom fields whose value differs from `before`'s, as changes from
    /// it, by name.
    package func customFieldChanges(from before: Metadata) -> [SavePlan.CustomFieldChange] {
        Set(before.customFieldNames).union(customFieldNames).sorted().compactMap { name in
            before[custom: name] == self[custom: name]
                ? nil : SavePlan.CustomFieldChange(name: name, oldValue: before[custom: name], newValue: self[custom: name])
        }
    }
}
