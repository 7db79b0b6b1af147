import MetadataKit

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

/// Walks folders depth-first, in name order, and hands out the media files
/// in them; what can't be walked is handed out in its place as a problem.
///
/// - A folder's entries are sorted by their bytes, so a walk of an unchanged
///   tree gives the same order every time.
/// - Symbolic links are not followed unless ``Options/followSymbolicLinks``;
///   when they are, every folder is entered once (by device and inode), so a
///   link back to an ancestor (a loop) or to a folder seen before is passed over.
/// - A folder that can't be opened, or an entry that vanished between the
///   folder listing and its `lstat`, is a ``Entry/problem(path:message:)``.
public struct FolderWalker: Sendable {
    /// What to walk into and what to hand out.
    public struct Options: Sendable {
        /// Globs (`fnmatch(3)`); when not empty, only files matching one are
        /// handed out. A pattern without `/` is matched against the file's
        /// name, one with `/` against its path below the folder walked.
        public var include: [String] = []
        /// Globs (same matching); matching files are not handed out and
        /// matching folders are not entered.
        public var exclude: [String] = []
        /// Lowercased extensions (no dot) of the files handed out; nil for
        /// every file. Defaults to those of `MediaFormat.all`.
        public var extensions: Set<String>? {
            get { chosenExtensions ?? FolderWalker.mediaExtensions }
            set { chosenExtensions = .some(newValue) }
        }
        /// ``extensions`` once set: the default set is made when a walk first
        /// asks for it, not by every `Options()` (`mdkit read` of files alone
        /// never walks; the set costs a pass over every format's list).
        private var chosenExtensions: Set<String>??
        /// Whether symbolic links are followed (to files and folders).
        public var followSymbolicLinks = false

        /// The defaults: the files of every format by extension, no globs, links not followed.
        public init() {}
    }

    /// One result of a walk.
    public enum Entry: Sendable, Equatable {
        /// A file to read, with its status from `lstat` (`stat` when links are followed).
        case file(path: String, status: FileStatus)
        /// A path that could not be walked (a folder that can't be opened, a
        /// file that vanished, a loop), with the reason.
        case problem(path: String, message: String)
    }

    /// The extensions of every format in `MediaFormat.all`.
    public static let mediaExtensions: Set<String> = Set(MediaFormat.all.flatMap(\.extensions).map { $0.lowercased() })

    /// How the walk chooses files.
    public var options: Options

    /// A walker with `options`.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Walks `root` (a folder, or a file handed out as it is, unfiltered) and
    /// calls `body` with every entry, in walk order. `root` is used as given
    /// (relative paths stay relative). Stops when `body` throws.
    public func walk(_ root: String, _ body: (Entry) throws -> Void) rethrows {
        guard let status = FileStatus(path: root, followingLinks: true) else {
            try body(.problem(path: root, message: String(cString: strerror(errno))))
            return
        }
        guard status.isDirectory else {
            try body(.file(path: root, status: status))
            return
        }
        var visited: Set<FileStatus.Identity> = [status.identity]
        let base = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
        try walkFolder(base, relative: "", visited: &visited, body)
    }

    private func walkFolder(
        _ path: String, relative: String, visited: inout Set<FileStatus.Identity>, _ body: (Entry) throws -> Void
    ) rethrows {
        guard let names = Self.entries(of: path) else {
            try body(.problem(path: path, message: "can't open the folder: " + String(cString: strerror(errno))))
            return
        }
        // Entries are looked at relative to the folder (`fstatat`: the kernel does not walk the
        // folder's path again for each); by path when it can't be opened again (no descriptor left).
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if folder >= 0 { close(folder) } }
        for name in names {
            let child = path == "/" ? "/" + name : path + "/" + name
            let childRelative = relative.isEmpty ? name : relative + "/" + name
            let found = folder >= 0 ? FileStatus(in: folder, name: name) : FileStatus(path: child, followingLinks: false)
            guard var status = found else {
                // Listed a moment ago, gone now (or its folder was).
                try body(.problem(path: child, message: "vanished during the walk: " + String(cString: strerror(errno))))
                continue
            }
            let isLink = status.isSymbolicLink
            if isLink {
                guard options.followSymbolicLinks else { continue }
                guard let target = FileStatus(path: child, followingLinks: true) else {
                    try body(.problem(path: child, message: "dangling symbolic link: " + String(cString: strerror(errno))))
                    continue
                }
                status = target
            }
            if matches(options.exclude, name: name, relative: childRelative) { continue }
            if status.isDirectory {
                guard visited.insert(status.identity).inserted else {
                    if isLink {
                        try body(.problem(path: child, message: "folder already walked (a symbolic link loop?): not entered again"))
                    }
                    continue
                }
                try walkFolder(child, relative: childRelative, visited: &visited, body)
            } else if status.isRegularFile {
                if let extensions = options.extensions {
                    // The last "." by its byte (not by Character: a walk asks this of every file).
                    guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")),
                        extensions.contains(name[name.utf8.index(after: dot)...].lowercased())
                    else { continue }
                }
                if !options.include.isEmpty && !matches(options.include, name: name, relative: childRelative) { continue }
                try body(.file(path: child, status: status))
            }
        }
    }

    /// Whether one of `patterns` matches the name (patterns without `/`) or
    /// the relative path (patterns with `/`).
    private func matches(_ patterns: [String], name: String, relative: String) -> Bool {
        patterns.contains { pattern in
            fnmatch(pattern, pattern.contains("/") ? relative : name, 0) == 0
        }
    }

    /// The names in the folder at `path` (not `.` and `..`), sorted by their
    /// UTF-8 bytes; nil with `errno` set when it can't be opened. The names'
    /// bytes (as decoded: a name that is not UTF-8 sorts as its repaired
    /// string) go into one buffer and are sorted there by `memcmp` of spans,
    /// with no string copied or retained per comparison.
    static func entries(of path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        var bytes: [UInt8] = []
        var spans: [(start: Int, count: Int, index: Int)] = []
        while let entry = readdir(directory) {
            var name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            name.withUTF8 { utf8 in
                spans.append((bytes.count, utf8.count, names.count))
                bytes.append(contentsOf: utf8)
            }
            names.append(name)
        }
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            spans.sort { a, b in
                let common = min(a.count, b.count)
                let order = common > 0 ? memcmp(base + a.start, base + b.start, common) : 0
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
        return spans.map { names[$0.index] }
    }

    /// Whether `a`'s UTF-8 bytes come before `b`'s (`memcmp` order, a prefix first).
    static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                    let order = memcmp(p, q, common)
                    if order != 0 { return order < 0 }
                }
                return x.count < y.count
            }
        }
    }
}
