import MetadataKitBytes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Layout changes through a temporary file: written beside the destination,
/// synced, checked, given the original's owner, permissions and extended
/// attributes, renamed over the destination; then the folder is synced.
extension FileEditor {
    /// Bytes copied from the original per read and write.
    static let copyChunk = 1 << 20

    /// Writes `segments` (runs of `source` and new bytes) to `destination`
    /// through a temporary file; returns what `verify` returned for it.
    package func rewrite<Checked>(
        from source: Int32, segments: [FileEditPlan.Segment], to destination: URL,
        permissionsFrom original: Int32, verify: (URL) throws -> Checked
    ) throws -> Checked {
        let (temporary, temporaryPath) = try makeTemporary(
            from: source, segments: segments, for: destination,
            permissionsFrom: original)
        let temporaryURL = URL(fileURLWithPath: temporaryPath, isDirectory: false)
        var renamed = false
        defer {
            close(temporary)
            if !renamed { unlink(temporaryPath) }
        }
        try step(.temporarySync) { try sync(temporary, url: destination) }
        let checked: Checked
        do {
            checked = try verify(temporaryURL)
        } catch {
            throw Self.verification(error, url: destination)
        }
        try step(.rename) { try FileIO.rename(temporaryPath, over: destination.path) }
        renamed = true
        try step(.directorySync) {
            guard durability == .full else { return }
            try syncAfterSave(of: destination) { try FileIO.syncFolder(of: destination) }
        }
        return checked
    }

    /// Copies the first bytes of a run of the original into the temporary
    /// file without them passing through this process: the block-aligned part
    /// shared by reference (``Platform/cloneRange(from:at:length:to:at:)``,
    /// btrfs and XFS) when source and target sit at the same offset within a
    /// block, else copied by `copy_file_range` in large calls. Returns whether
    /// blocks were shared and how many bytes from the start of the run are
    /// done (the caller copies the rest through a buffer).
    func copyInKernel(from source: Int32, at offset: Int64, length: Int64, to target: Int32, at position: Int64, url: URL) throws
        -> (cloned: Bool, done: Int64)
    {
        if allowsClone, let block = Platform.blockSize(target), length >= 2 * block, (offset - position) % block == 0 {
            let head = (block - offset % block) % block
            let middle = (length - head) / block * block
            var buffer = [UInt8](repeating: 0, count: Int(head))
            if head > 0 { try FileIO.read(into: &buffer, count: Int(head), from: source, at: offset, url: url) }
            if Platform.cloneRange(from: source, at: offset + head, length: middle, to: target, at: position + head) == 0 {
                if head > 0 { try FileIO.write(target, buffer, at: position, url: url) }
                let done = head + middle
                if done == length { return (true, done) }
                // The unaligned end: copied below, after the cloned part.
                let copied = try copyInKernel(
                    from: source, at: offset + done, length: length - done, to: target,
                    at: position + done, cloning: false)
                return (true, done + copied.done)
            }
        }
        return (false, try copyInKernel(from: source, at: offset, length: length, to: target, at: position, cloning: false).done)
    }

    private func copyInKernel(
        from source: Int32, at offset: Int64, length: Int64, to target: Int32, at position: Int64,
        cloning: Bool
    ) throws -> (cloned: Bool, done: Int64) {
        guard allowsKernelCopy else { return (false, 0) }
        return (false, KernelCopier.copyRange(from: source, at: offset, count: length, to: target, at: position))
    }

    /// Writes `segments` (runs of `source` and new bytes) to a new temporary
    /// file beside `destination`, with `original`'s owner and permissions;
    /// returns its descriptor and path. Removes it on failure.
    func makeTemporary(
        from source: Int32, segments: [FileEditPlan.Segment], for destination: URL,
        permissionsFrom original: Int32
    ) throws -> (descriptor: Int32, path: String) {
        let directory = destination.deletingLastPathComponent()
        let (temporary, temporaryPath, wholeClone) = try createTemporary(
            in: directory, for: destination, cloning: Self.keepsAnyRunInPlace(segments) ? source : nil)
        do {
            try step(.temporaryWrite) {
                var position: Int64 = 0
                var buffer = [UInt8](repeating: 0, count: Self.copyChunk)
                var cloned = wholeClone
                for segment in segments {
                    switch segment {
                    case .bytes(let bytes):
                        try FileIO.write(temporary, bytes, at: position, url: destination)
                    case .original(let offset, _) where wholeClone && offset == position:
                        break // the clone holds these bytes where they belong
                    case .original(let offset, let length):
                        let (shared, copied) = try copyInKernel(
                            from: source, at: offset, length: length, to: temporary, at: position,
                            url: destination)
                        cloned = cloned || shared
                        var done = copied
                        while done < length {
                            let count = Int(min(Int64(buffer.count), length - done))
                            try FileIO.read(into: &buffer, count: count, from: source, at: offset + done, url: destination)
                            try FileIO.write(temporary, buffer[0..<count], at: position + done, url: destination)
                            done += Int64(count)
                        }
                    }
                    position += segment.length
                }
                if wholeClone, ftruncate(temporary, off_t(position)) != 0 {
                    throw MediaError(.io, "cannot set the new file's size: \(systemErrorText())", path: destination.path)
                }
                recorder.path = cloned ? .cloneRewrite : .rewrite
            }
        } catch {
            close(temporary)
            unlink(temporaryPath)
            throw error
        }
        var info = stat()
        if fstat(original, &info) == 0 {
            _ = fchown(temporary, info.st_uid, info.st_gid) // best effort: only root may give files away
            fchmod(temporary, info.st_mode & 0o7777)
        }
        Platform.copyExtendedAttributes(from: original, to: temporary)
        return (temporary, temporaryPath)
    }

    /// Whether some run of the original keeps its offset in the new file
    /// (what a whole-file clone already holds in place).
    static func keepsAnyRunInPlace(_ segments: [FileEditPlan.Segment]) -> Bool {
        var position: Int64 = 0
        for segment in segments {
            if case .original(let offset, let length) = segment, offset == position, length > 0 { return true }
            position += segment.length
        }
        return false
    }

    /// A new temporary file `.NAME.mdkit-…` in `directory`: a copy-on-write
    /// clone of `source` where the system clones whole files
    /// (``wholeFileClone``: Darwin `fclonefileat` on APFS) and `source` is
    /// given, else an empty file (`mkstemp`). Returns its descriptor, path,
    /// and whether it is a clone.
    private func createTemporary(in directory: URL, for destination: URL, cloning source: Int32?) throws
        -> (descriptor: Int32, path: String, cloned: Bool)
    {
        if allowsClone, let source {
            var random = SystemRandomNumberGenerator()
            let path = directory.appendingPathComponent(".\(destination.lastPathComponent).mdkit-\(String(random.next(), radix: 36))").path
            if wholeFileClone(source, path) == 0 {
                let descriptor = open(path, O_RDWR | O_CLOEXEC)
                if descriptor >= 0 { return (descriptor, path, true) }
                unlink(path)
            }
        }
        var template = Array(directory.appendingPathComponent(".\(destination.lastPathComponent).mdkit-XXXXXX").path.utf8CString)
        let temporary = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard temporary >= 0 else {
            throw MediaError(
                errno == EACCES || errno == EROFS || errno == EPERM ? .readOnly : .io,
                "cannot create a temporary file in \(directory.path): \(systemErrorText())", path: destination.path)
        }
        return (temporary, String(cString: template.withUnsafeBufferPointer { $0.baseAddress! }), false)
    }
}
