import Foundation
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
    func rewrite<Checked>(from source: Int32, segments: [FileEditPlan.Segment], to destination: URL,
                          permissionsFrom original: Int32, verify: (URL) throws -> Checked) throws -> Checked {
        let (temporary, temporaryPath) = try makeTemporary(from: source, segments: segments, for: destination,
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

    /// Writes `segments` (runs of `source` and new bytes) to a new temporary
    /// file beside `destination`, with `original`'s owner and permissions;
    /// returns its descriptor and path. Removes it on failure.
    func makeTemporary(from source: Int32, segments: [FileEditPlan.Segment], for destination: URL,
                       permissionsFrom original: Int32) throws -> (descriptor: Int32, path: String) {
        let directory = destination.deletingLastPathComponent()
        var template = Array(directory.appendingPathComponent(".\(destination.lastPathComponent).mdkit-XXXXXX").path.utf8CString)
        let temporary = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard temporary >= 0 else {
            throw MediaError(errno == EACCES || errno == EROFS ? .readOnly : .io,
                             "cannot create a temporary file in \(directory.path): \(systemErrorText())", path: destination.path)
        }
        let temporaryPath = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        do {
            try step(.temporaryWrite) {
                var position: Int64 = 0
                var buffer = [UInt8](repeating: 0, count: Self.copyChunk)
                for segment in segments {
                    switch segment {
                    case .bytes(let bytes):
                        try FileIO.write(temporary, bytes, at: position, url: destination)
                    case .original(let offset, let length):
                        var done: Int64 = 0
                        while done < length {
                            let count = Int(min(Int64(buffer.count), length - done))
                            try FileIO.read(into: &buffer, count: count, from: source, at: offset + done, url: destination)
                            try FileIO.write(temporary, buffer[0..<count], at: position + done, url: destination)
                            done += Int64(count)
                        }
                    }
                    position += segment.length
                }
            }
        } catch {
            close(temporary)
            unlink(temporaryPath)
            throw error
        }
        var info = stat()
        if fstat(original, &info) == 0 {
            _ = fchown(temporary, info.st_uid, info.st_gid)  // best effort: only root may give files away
            fchmod(temporary, info.st_mode & 0o7777)
        }
        Platform.copyExtendedAttributes(from: original, to: temporary)
        return (temporary, temporaryPath)
    }
}
