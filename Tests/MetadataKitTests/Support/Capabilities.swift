import Foundation
import Testing

@testable import MetadataKit
@testable import MetadataKitCatalog
@testable import MetadataKitSaving

/// What a test needs beyond the Swift toolchain and the interop tools
/// (``TestSupport/hasTool(_:)``): use each in `.enabled(if:_:)` with a
/// comment saying what the test needs, never as a silent `return`.
///
/// The CI rule of ``TestSupport/hasTool(_:)`` holds for what CI provides on
/// the system the tests run on (`.ci/run` on Linux,
/// `.github/workflows/macos.yml` on macOS): missing under `CI=true`, the
/// check answers true, so the test runs and fails where it uses it (a check
/// made inside a running test records the failure at once). What CI does not
/// provide there — Chromium and some ffmpeg encoders on macOS, a tmpfs mount
/// anywhere — disables the test, with its reason, locally and under CI.
enum Capabilities {
    /// The systems the tests run on.
    enum System: Sendable { case linux, darwin }

    /// The system these tests run on.
    static var system: System {
        #if canImport(Darwin)
            .darwin
        #else
            .linux
        #endif
    }

    /// `present`, or — where CI provides `what` on this system and this is a
    /// CI run — true after recording `what` as missing.
    static func check(_ what: String, present: Bool, providedByCI systems: Set<System>) -> Bool {
        present || (systems.contains(system) && TestSupport.missingUnderCI(what))
    }

    // MARK: Tools

    /// libpq, loaded at run time for PostgreSQL catalogs. CI installs it on Linux.
    static var libpq: Bool {
        check("libpq (Debian: libpq5)", present: (try? LibPQ.shared.get()) != nil, providedByCI: [.linux])
    }

    /// `chromium` on the PATH (the player page test). CI installs it on Linux.
    static var chromium: Bool {
        check("chromium on the PATH", present: TestSupport.isInstalled("chromium"), providedByCI: [.linux])
    }

    /// Whether ffmpeg encodes with `encoder` (`libvorbis`, `libopus`,
    /// `libspeex`, `libtheora`, `libvpx`). Debian's ffmpeg, which CI installs
    /// on Linux, has them all; Homebrew's ffmpeg lacks several (libvorbis).
    static func ffmpegEncodes(_ encoder: String) -> Bool {
        check("ffmpeg's \(encoder) encoder", present: ffmpegEncoders.contains(encoder), providedByCI: [.linux])
    }

    /// The encoder names `ffmpeg -encoders` lists (empty without ffmpeg).
    private static let ffmpegEncoders: Set<String> = {
        guard TestSupport.isInstalled("ffmpeg"), let output = try? TestSupport.run("ffmpeg", ["-hide_banner", "-encoders"]) else {
            return []
        }
        // Lines such as " A....D libvorbis            libvorbis (codec vorbis)": flags, name, description.
        return Set(
            output.text.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 2, fields[0].count == 6, fields[0].allSatisfy({ $0 == "." || $0.isLetter }) else { return nil }
                return String(fields[1])
            })
    }()

    // MARK: The build

    /// The `mdkit` binary, found beside the tests (``TestSupport/mdkitExecutable``).
    /// Every CI run builds it (the test target depends on it).
    static var mdkit: Bool {
        check("the mdkit binary beside the tests", present: TestSupport.mdkitExecutable != nil, providedByCI: [.linux, .darwin])
    }

    // MARK: Servers

    /// The PostgreSQL server for the catalog tests: a connection string in
    /// `MDKIT_TEST_POSTGRES_URL` (`postgresql://user@host:port/database`; the
    /// tests create and drop their own databases there). `.ci/run` starts one on Linux.
    static var postgreSQL: Bool {
        check("a PostgreSQL server in MDKIT_TEST_POSTGRES_URL", present: postgreSQLURL != nil, providedByCI: [.linux])
    }

    static var postgreSQLURL: String? { ProcessInfo.processInfo.environment["MDKIT_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } }

    // MARK: The system

    /// The store of journals of saves whose folder can't be written
    /// (``ElsewhereJournalStore``): a writable `/dev/shm` on Linux, the
    /// per-user temporary folder on Darwin. Without it such saves are
    /// refused; the tests of saves that go through need it. Every CI system has one.
    static var journalStoreElsewhere: Bool {
        check(
            "the journal folder outside the file's (/dev/shm on Linux; Darwin: the per-user temporary folder)",
            present: ElsewhereJournalStore.shared?.prepare() != nil, providedByCI: [.linux, .darwin])
    }

    /// Whether this process may mount a tmpfs (Linux, root, and a sandbox
    /// that allows it) — the full-disk test. CI does not promise it: a
    /// container without `CAP_SYS_ADMIN` can't, and Darwin has no tmpfs.
    static let tmpfsMount: Bool = {
        guard system == .linux, getuid() == 0, let directory = try? TestSupport.makeTemporaryDirectory() else { return false }
        defer { try? FileManager.default.removeItem(at: directory) }
        guard (try? TestSupport.run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", directory.path]).status) == 0 else { return false }
        _ = try? TestSupport.run("umount", [directory.path])
        return true
    }()

    /// Whether `chattr +i` makes a folder immutable here (Linux, root,
    /// `chattr` installed, a file system and sandbox that allow it:
    /// `CAP_LINUX_IMMUTABLE`) — the read-only folder test as root, whom
    /// folder modes don't stop. CI does not promise it (like ``tmpfsMount``).
    static let immutableFolders: Bool = {
        guard system == .linux, getuid() == 0, TestSupport.isInstalled("chattr"),
            let directory = try? TestSupport.makeTemporaryDirectory()
        else { return false }
        defer { try? FileManager.default.removeItem(at: directory) }
        guard (try? TestSupport.run("chattr", ["+i", directory.path]).status) == 0 else { return false }
        _ = try? TestSupport.run("chattr", ["-i", directory.path])
        return true
    }()

    /// Whether this process can make and loop-mount a small btrfs or XFS
    /// file system (``LoopMount``): Linux, root, `mkfs.btrfs`/`mkfs.xfs`
    /// installed (Debian btrfs-progs, xfsprogs) and a sandbox that allows
    /// loop mounts — the clone and insertion tests on file systems other than
    /// the temporary folder's. CI does not promise it (like ``tmpfsMount``).
    static let loopBtrfs = LoopMount.probe("btrfs")
    static let loopXFS = LoopMount.probe("xfs")
}

extension Capabilities {
    /// mkvtoolnix's `mkvmerge`, `mkvinfo` and `mkvextract` (the Matroska
    /// interop tests); CI installs mkvtoolnix on Linux.
    static var mkvtoolnix: Bool {
        check(
            "mkvtoolnix (mkvmerge, mkvinfo, mkvextract)",
            present: ["mkvmerge", "mkvinfo", "mkvextract"].allSatisfy(TestSupport.isInstalled), providedByCI: [.linux])
    }
}

extension Capabilities {
    /// util-linux's `script`, whose `-c` runs a command under a
    /// pseudo-terminal (BSD `script` on Darwin has no `-c`). CI installs
    /// util-linux on Linux; on Darwin the progress tests are disabled.
    static let utilLinuxScript: Bool = {
        let present =
            TestSupport.isInstalled("script") && (try? TestSupport.run("script", ["--version"]).text.contains("util-linux")) == true
        return check("script from util-linux (BSD script has no -c)", present: present, providedByCI: [.linux])
    }()

    /// Whether names that differ only in case are two files in the temporary
    /// folder: true on Linux file systems, false on APFS and HFS+ by default.
    static let caseSensitiveTemporaryFolder: Bool = {
        guard let directory = try? TestSupport.makeTemporaryDirectory() else { return false }
        defer { try? FileManager.default.removeItem(at: directory) }
        guard FileManager.default.createFile(atPath: directory.appendingPathComponent("a").path, contents: Data()) else { return false }
        return !FileManager.default.fileExists(atPath: directory.appendingPathComponent("A").path)
    }()

    /// GNU `ls` (coreutils), which takes `--quoting-style`; BSD `ls` on Darwin doesn't.
    static let gnuLs: Bool = (try? TestSupport.run("ls", ["--version"]).status) == 0

    /// A writable tmpfs at `/dev/shm` (Linux), for the tests of the fallback
    /// where a file system can't insert blocks. Every Linux CI system has
    /// one; Darwin has no tmpfs.
    static var shmFolder: Bool {
        check(
            "a writable tmpfs at /dev/shm", present: FileManager.default.isWritableFile(atPath: "/dev/shm"),
            providedByCI: [.linux])
    }

    /// A SHA-256 tool to check hashes against: `sha256sum` (coreutils) or
    /// `shasum -a 256` (Perl's, on every Mac). CI has one on both systems.
    static var sha256Tool: Bool {
        check(
            "sha256sum or shasum", present: TestSupport.sha256Command != nil, providedByCI: [.linux, .darwin])
    }
}

extension TestSupport {
    /// The command that prints a file's SHA-256 as `HEX  PATH`: `sha256sum`
    /// (coreutils), else `shasum -a 256` (Perl's, which every Mac has; not
    /// every macOS has `sha256sum`); nil with neither.
    static let sha256Command: [String]? = {
        if isInstalled("sha256sum") { return ["sha256sum"] }
        if isInstalled("shasum") { return ["shasum", "-a", "256"] }
        return nil
    }()

    /// The lowercase hex SHA-256 of the file at `path`, by ``sha256Command``.
    static func sha256Hex(ofFileAt path: String) throws -> String {
        let command = try #require(sha256Command, "needs sha256sum or shasum")
        return String(try runChecked(command[0], Array(command.dropFirst()) + [path]).text.prefix(64))
    }
}
