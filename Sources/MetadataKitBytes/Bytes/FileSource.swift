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

/// Positioned, bounds-checked reads from an open file.
///
/// Reads go through one reused window buffer, so walking the headers of
/// neighbouring boxes, frames or chunks costs one `pread` per window, not one
/// per structure, and no `Data` is made per box. The file is never read as a
/// whole. A `FileSource` is used by one task at a time (it is not `Sendable`).
package final class FileSource {
    /// The file's path, for error messages.
    package let path: String
    /// The file's size in bytes when it was opened.
    package let size: Int64
    /// Size, modification time and inode when the file was opened.
    package let snapshot: FileSnapshot

    /// The open file; -1 for a source made of runs (``init(runs:over:)``).
    private let descriptor: Int32
    /// For a source made of runs: the runs, where each starts, and the source
    /// the `.original` runs are read from.
    private let composed: (runs: [Run], starts: [Int64], base: FileSource?)?
    /// For a source reading another ``ByteSource`` (``init(source:path:)``): that source.
    private let external: (any ByteSource)?
    /// Three windows, each holding bytes `start ..< start + count` of the
    /// file: parsers often alternate between regions (the start of the file,
    /// a tag at its end and the item after a picture; the two ends of a movie
    /// box), and three windows keep them without reading any again.
    private var windows: [UInt8]
    private var slots = WindowSlots()
    /// Small on purpose: most reads are box, frame and chunk headers close to
    /// each other, and a bigger window only copies bytes nobody asked for.
    static let windowSize = 4 * 1024
    /// How many windows there are.
    static let windowCount = WindowSlots.count
    /// How many times a window was filled from the file (for tests).
    private(set) var windowFills = 0
    /// Bytes before a missed read that a refilled window also holds.
    static let lookBehind = windowSize / 2

    /// Opens `url` for reading.
    package convenience init(url: URL) throws {
        try self.init(path: url.path)
    }

    /// Opens the file at `path` for reading.
    package convenience init(path: String) throws {
        try self.init(path: path, followingSymbolicLink: true)
    }

    /// Thrown by ``init(path:followingSymbolicLink:)`` when the path's last
    /// component is a symbolic link it was told not to follow.
    package struct SymbolicLinkFound: Error {}

    /// Opens the file at `path`; without `followingSymbolicLink`, a symbolic
    /// link as the last component throws ``SymbolicLinkFound`` (`O_NOFOLLOW`:
    /// telling a link apart costs no extra system call).
    package init(path: String, followingSymbolicLink: Bool) throws {
        self.path = path
        // O_NONBLOCK: a FIFO (or a device) at the path must not hang the open until a writer comes;
        // it is refused below. Reads of a regular file are not changed by it.
        descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingSymbolicLink ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else {
            if !followingSymbolicLink && errno == ELOOP { throw SymbolicLinkFound() }
            throw MediaError(.io, "cannot open: \(systemErrorText())", path: path)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = systemErrorText()
            close(descriptor)
            throw MediaError(.io, "cannot stat: \(reason)", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw MediaError(.io, "not a regular file", path: path)
        }
        size = Int64(info.st_size)
        snapshot = FileSnapshot(info)
        composed = nil
        external = nil
        // Not zeroed: a window's bytes are only read after a read filled them.
        windows = [UInt8](unsafeUninitializedCapacity: Self.windowCount * Self.windowSize) { _, count in
            count = Self.windowCount * Self.windowSize
        }
    }

    /// A run of a source made of runs: bytes of another source, or bytes in memory.
    package enum Run: Sendable, Equatable {
        /// `length` bytes of the base source from `offset`.
        case original(offset: Int64, length: Int64)
        /// Bytes in memory.
        case bytes([UInt8])

        package var length: Int64 {
            switch self {
            case .original(_, let length): return length
            case .bytes(let bytes): return Int64(bytes.count)
            }
        }
    }

    /// A source whose bytes are `runs` laid end to end, the original ones read
    /// from `base`: a file as an edit would make it, read without writing it
    /// (the dry run of a save parses it). It takes `base`'s path and identity.
    package init(runs: [Run], over base: FileSource) {
        path = base.path
        snapshot = base.snapshot
        descriptor = -1
        var starts: [Int64] = []
        var total: Int64 = 0
        for run in runs {
            starts.append(total)
            total += run.length
        }
        size = total
        composed = (runs, starts, base)
        external = nil
        windows = [UInt8](unsafeUninitializedCapacity: Self.windowCount * Self.windowSize) { _, count in
            count = Self.windowCount * Self.windowSize
        }
    }

    /// A source reading `bytes` in memory (a file's contents given as `Data`),
    /// named `path` in messages; its identity is its size alone.
    package init(bytes: [UInt8], path: String) {
        self.path = path
        size = Int64(bytes.count)
        snapshot = FileSnapshot(size: size, modificationSeconds: 0, modificationNanoseconds: 0, inode: 0)
        descriptor = -1
        composed = ([.bytes(bytes)], [0], nil)
        external = nil
        windows = [UInt8](unsafeUninitializedCapacity: Self.windowCount * Self.windowSize) { _, count in
            count = Self.windowCount * Self.windowSize
        }
    }

    /// A source reading `source` (a ``ByteSource`` a user gave), named `path`
    /// in messages; its identity is its size alone.
    package init(source: any ByteSource, path: String) {
        self.path = path
        size = max(0, source.size)
        snapshot = FileSnapshot(size: size, modificationSeconds: 0, modificationNanoseconds: 0, inode: 0)
        descriptor = -1
        composed = nil
        external = source
        windows = [UInt8](unsafeUninitializedCapacity: Self.windowCount * Self.windowSize) { _, count in
            count = Self.windowCount * Self.windowSize
        }
    }

    /// True for a source of bytes in memory (``init(bytes:path:)``).
    var isInMemory: Bool { composed != nil && composed?.base == nil }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Throws `truncated` unless `count` bytes exist at `offset`.
    package func require(_ offset: Int64, _ count: Int64, _ what: @autoclosure () -> String) throws {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw MediaError(.truncated, "\(what()) needs \(count) bytes but the file ends at byte \(size)", offset: offset)
        }
    }

    /// Reads exactly `count` bytes at `offset`; throws `truncated` past the end.
    package func getBytes(at offset: Int64, count: Int) throws -> [UInt8] {
        try require(offset, Int64(count), "read")
        if count == 0 { return [] }
        if count > Self.windowSize / 2, windowIndex(of: offset, count: count) == nil {
            return try getDirect(at: offset, count: count)
        }
        let start = try windowed(offset, count)
        return Array(windows[start..<start + count])
    }

    /// Calls `body` with the `count` bytes at `offset` (at most half a window)
    /// straight from the window buffer: no array is made. The bytes are only
    /// valid inside `body`.
    package func withBytes<Result>(at offset: Int64, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        try require(offset, Int64(count), "read")
        precondition(count <= Self.windowSize / 2, "withBytes reads at most half a window")
        let start = try windowed(offset, count)
        return try windows.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[start..<start + count]))
        }
    }

    /// Whether the bytes at `offset` are `magic`'s, compared in the window (no
    /// array made: the checks for tags at the end of a file run for every
    /// file read). Throws `truncated` as ``getBytes(at:count:)`` does when
    /// the file ends first.
    package func holds(_ magic: StaticString, at offset: Int64) throws -> Bool {
        let count = magic.utf8CodeUnitCount
        return try withBytes(at: offset, count: count) { raw in
            magic.withUTF8Buffer { memcmp(raw.baseAddress!, $0.baseAddress!, count) == 0 }
        }
    }

    /// Where bytes `offset..<offset+count` start in `windows` if a window holds them.
    private func windowIndex(of offset: Int64, count: Int) -> Int? {
        guard let window = slots.window(holding: offset, count: count) else { return nil }
        return window * Self.windowSize + Int(offset - slots.start(of: window))
    }

    /// The index in `windows` of the byte at `offset`, filling the least
    /// recently used window from `offset` when none holds the `count` bytes
    /// (`count` ≤ one window, and known to be in the file).
    private func windowed(_ offset: Int64, _ count: Int) throws -> Int {
        if let start = windowIndex(of: offset, count: count) { return start }
        // The window starts a little before `offset` (parsers often step back
        // a little: the frame after a picture, just before the audio they
        // looked at first) and never wastes room past the end of the file.
        let start = max(0, min(offset - min(offset, Int64(Self.lookBehind)), size - Int64(Self.windowSize)))
        let length = Int(min(Int64(Self.windowSize), size - start))
        let window = slots.leastRecentlyUsed
        let base = window * Self.windowSize
        try windows.withUnsafeMutableBytes { raw in
            try fill(raw.baseAddress! + base, count: length, at: start)
        }
        windowFills += 1
        slots.set(window, start: start, count: length)
        return base + Int(offset - start)
    }

    /// Reads up to `count` bytes at `offset`, fewer at the end of the file.
    package func getAvailableBytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, offset < size else { return [] }
        return try getBytes(at: offset, count: Int(min(Int64(count), size - offset)))
    }

    /// Reads the `count` bytes at `offset` except those in `holes`, which are
    /// zero in the result: for a structure whose bulk (a picture's image) the
    /// caller does not need, so that it is neither copied nor read (the
    /// pieces a window holds come from it). `holes`
    /// are ranges of file offsets inside the read, sorted and not
    /// overlapping; with none it is ``getBytes(at:count:)``. Throws
    /// `truncated` past the end.
    package func getBytes(at offset: Int64, count: Int, zeroing holes: [Range<Int64>]) throws -> [UInt8] {
        if holes.isEmpty { return try getBytes(at: offset, count: count) }
        try require(offset, Int64(count), "read")
        let end = offset + Int64(count)
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var position = offset
            for hole in holes + [end..<end] {
                precondition(hole.lowerBound >= position && hole.upperBound <= end, "holes sorted, inside the read")
                let piece = Int(hole.lowerBound - position)
                let destination = buffer.baseAddress! + Int(position - offset)
                if piece > 0, let start = windowIndex(of: position, count: piece) {
                    windows.withUnsafeBytes { raw in _ = memcpy(destination, raw.baseAddress! + start, piece) }
                } else if piece > 0 {
                    try fill(destination, count: piece, at: position)
                }
                memset(buffer.baseAddress! + Int(hole.lowerBound - offset), 0, hole.count)
                position = hole.upperBound
            }
            initialized = count
        }
    }

    /// A ``ByteReader`` over `count` bytes at `offset`.
    package func reader(at offset: Int64, count: Int) throws -> ByteReader {
        ByteReader(try getBytes(at: offset, count: count), fileOffset: offset)
    }

    private func getDirect(at offset: Int64, count: Int) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try fill(buffer.baseAddress!, count: count, at: offset)
            initialized = count
        }
    }

    /// Reads the `destination.count` bytes at `offset` into `destination`,
    /// past the windows (for bulk a caller keeps in its own buffer: the
    /// catalog's picture hashing). Throws `truncated` when the file does not
    /// hold them (it may have shrunk since it was opened).
    package func read(into destination: UnsafeMutableRawBufferPointer, at offset: Int64) throws {
        try require(offset, Int64(destination.count), "read")
        guard let base = destination.baseAddress, destination.count > 0 else { return }
        try fill(base, count: destination.count, at: offset)
    }

    /// Reads exactly `count` bytes at `offset` into `destination`.
    private func fill(_ destination: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws {
        if let composed {
            return try fillComposed(composed, destination, count: count, at: offset)
        }
        if let external {
            return try fillExternal(external, destination, count: count, at: offset)
        }
        try readFully(descriptor, into: destination, count: count, at: offset, path: path) { [path] end in
            MediaError(.truncated, "file ended while reading (it may have shrunk)", offset: end, path: path)
        }
    }
}

extension FileSource {
    /// Copies the `count` bytes at `offset` of a ``ByteSource``; its errors
    /// other than a ``MediaError`` become `io` errors, and a read giving
    /// another number of bytes than asked for a `truncated` one.
    fileprivate func fillExternal(
        _ source: any ByteSource, _ destination: UnsafeMutableRawPointer, count: Int, at offset: Int64
    ) throws {
        guard count > 0 else { return }
        let bytes: Data
        do {
            bytes = try source.read(at: offset, count: count)
        } catch let error as MediaError {
            throw error
        } catch {
            throw MediaError(.io, "cannot read \(count) bytes: \(error)", offset: offset, path: path)
        }
        guard bytes.count == count else {
            throw MediaError(.truncated, "the source gave \(bytes.count) of \(count) bytes", offset: offset, path: path)
        }
        bytes.withUnsafeBytes { raw in _ = memcpy(destination, raw.baseAddress!, count) }
    }

    /// Copies `count` bytes at `offset` of a source made of runs: each run
    /// the range touches, from memory or from the base source.
    fileprivate func fillComposed(
        _ composed: (runs: [Run], starts: [Int64], base: FileSource?), _ destination: UnsafeMutableRawPointer, count: Int,
        at offset: Int64
    ) throws {
        let (runs, starts, base) = composed
        // The last run starting at or before `offset` (binary search).
        var low = 0
        var high = starts.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle] <= offset { low = middle } else { high = middle }
        }
        var position = offset
        var written = 0
        var index = low
        while written < count, index < runs.count {
            let within = position - starts[index]
            let piece = Int(min(Int64(count - written), runs[index].length - within))
            if piece > 0 {
                switch runs[index] {
                case .original(let origin, _):
                    guard let base else { throw MediaError(.io, "a run of the original file without one", path: path) }
                    try base.read(into: UnsafeMutableRawBufferPointer(start: destination + written, count: piece), at: origin + within)
                case .bytes(let bytes):
                    bytes.withUnsafeBytes { raw in _ = memcpy(destination + written, raw.baseAddress! + Int(within), piece) }
                }
                written += piece
                position += Int64(piece)
            }
            index += 1
        }
        guard written == count else {
            throw MediaError(.truncated, "read past the end of the planned file", offset: position, path: path)
        }
    }
}

/// Which bytes of the file each of ``FileSource``'s windows holds, and which
/// was used least recently (inline: no allocation per file).
struct WindowSlots {
    static let count = 3
    private var starts: (Int64, Int64, Int64) = (0, 0, 0)
    private var counts: (Int, Int, Int) = (0, 0, 0)
    private var lastUse: (UInt32, UInt32, UInt32) = (0, 0, 0)
    private var clock: UInt32 = 0

    func start(of window: Int) -> Int64 {
        switch window {
        case 0: starts.0
        case 1: starts.1
        default: starts.2
        }
    }

    /// The window holding all of `offset..<offset+count`, marked as just used.
    mutating func window(holding offset: Int64, count: Int) -> Int? {
        let end = offset + Int64(count)
        let window: Int
        if offset >= starts.0, end <= starts.0 + Int64(counts.0) {
            window = 0
        } else if offset >= starts.1, end <= starts.1 + Int64(counts.1) {
            window = 1
        } else if offset >= starts.2, end <= starts.2 + Int64(counts.2) {
            window = 2
        } else {
            return nil
        }
        touch(window)
        return window
    }

    /// The window to refill next: one never filled, else the least recently used.
    var leastRecentlyUsed: Int {
        if lastUse.0 <= lastUse.1 && lastUse.0 <= lastUse.2 { return 0 }
        return lastUse.1 <= lastUse.2 ? 1 : 2
    }

    /// Records that `window` now holds `count` bytes from `start`.
    mutating func set(_ window: Int, start: Int64, count: Int) {
        switch window {
        case 0: (starts.0, counts.0) = (start, count)
        case 1: (starts.1, counts.1) = (start, count)
        default: (starts.2, counts.2) = (start, count)
        }
        touch(window)
    }

    private mutating func touch(_ window: Int) {
        clock &+= 1
        switch window {
        case 0: lastUse.0 = clock
        case 1: lastUse.1 = clock
        default: lastUse.2 = clock
        }
    }
}
