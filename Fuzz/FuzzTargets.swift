// libFuzzer entry points for MetadataKit's parsers. Fuzz/build.sh compiles
// this file together with every source of Sources/MetadataKit into ONE module
// (named MetadataKit, so the internal readers are reachable) and one binary;
// the target is picked by the environment variable MDKIT_FUZZ_TARGET.
//
// Every target writes the input to a file (the library reads files by path)
// and runs one parser entry point on it. A MediaError is the expected
// outcome for most inputs; anything else — a trap, an ASan report, a hang
// (-timeout), a memory blow-up (-rss_limit_mb), a broken invariant — is a
// finding. See Fuzz/README.md.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The result of an async body, handed from its Task to the waiting thread.
final class ResultBox<Value>: @unchecked Sendable {
    var result: Result<Value, any Error>?
}

/// One fuzz target: a name, the file extension its input is written with,
/// and the work done on the written file.
struct FuzzTarget: Sendable {
    var name: String
    var fileExtension: String
    var summary: String
    var run: @Sendable (URL) throws -> Void
}

enum Fuzz {
    /// All targets, by the name MDKIT_FUZZ_TARGET takes.
    /// One target per format of the registry (named by its identifier), then
    /// the whole-item, asset and timed-metadata targets.
    static let targets: [FuzzTarget] =
        MediaFormat.all.map(format) + [
            FuzzTarget(
                name: "item", fileExtension: "mp3", summary: "MediaItem.load(): detection plus every reader",
                run: loadItem),
            FuzzTarget(
                name: "asset", fileExtension: "mp4", summary: "Asset.load() and every sample of every track (AssetReader)",
                run: readAsset),
            FuzzTarget(
                name: "timed", fileExtension: "mov", summary: "Asset.load() and TimedMetadataTrack.document(of:)",
                run: readTimedMetadata),
            FuzzTarget(
                name: "timedjson", fileExtension: "json", summary: "TimedMetadataDocument(json:), the annotate input",
                run: readTimedJSON),
            FuzzTarget(
                name: "xmp", fileExtension: "xml", summary: "XMPPacket (the XML reader and RDF properties) and its fields",
                run: readXMP),
        ]

    /// A target running one format's parser directly (no detection), then
    /// what MediaItem.load() does with its result.
    static func format(_ format: MediaFormat) -> FuzzTarget {
        FuzzTarget(name: format.identifier, fileExtension: format.extensions[0], summary: "\(format.name) parser") { url in
            let parsed = try format.parse(try FileSource(path: url.path), url)
            check(parsed.properties, warnings: parsed.warnings)
            var metadata = Metadata(items: parsed.items)
            metadata.fillReadOnlyFields(from: MediaFormat.readOnlyFieldSources)
            touch(metadata)
        }
    }

    static func loadItem(_ url: URL) throws {
        let item = try blocking {
            var item = MediaItem(url: url)
            try await item.load()
            return item
        }
        check(item.properties, warnings: item.warnings)
        touch(item.metadata)
    }

    static func readAsset(_ url: URL) throws {
        let asset = try blocking { try await Asset.load(url: url) }
        _ = asset.durationSeconds
        touch(asset.metadata)
        let reader = try AssetReader(asset: asset)
        for track in asset.tracks { try reader.addOutput(track: track) }
        // No cap on the count: a table that claims more samples than a
        // 64 KiB input can hold shows up as a -timeout finding.
        var count = 0
        while let sample = try reader.nextSample() {
            let data = try sample.readBytes() // data() on the calling thread
            precondition(data.count == sample.size, "sample \(count): \(data.count) bytes read, size says \(sample.size)")
            count += 1
        }
    }

    static func readTimedMetadata(_ url: URL) throws {
        let asset = try blocking { try await Asset.load(url: url) }
        let document = try blocking { try await TimedMetadataTrack.document(of: asset) }
        _ = document.jsonData()
        _ = document.webVTT(movieDuration: asset.durationSeconds)
    }

    static func readTimedJSON(_ url: URL) throws {
        let document = try TimedMetadataDocument(json: Fuzz.currentInput)
        _ = document.jsonData()
        _ = document.webVTT(movieDuration: 60)
        let format = MetadataSampleFormat(groups: document.groups)
        let entry = format.sampleEntry()
        _ = try MetadataSampleFormat(sampleEntry: entry)
        for group in document.groups { _ = try format.items(inSample: try format.sample(for: group)) }
    }

    static func readXMP(_ url: URL) throws {
        let bytes = [UInt8](Fuzz.currentInput)
        let packet = XMPPacket(bytes, baseOffset: 100)
        for warning in packet.warnings {
            precondition(warning.offset.map { $0 >= 100 && $0 <= 100 + Int64(bytes.count) } ?? false, "warning offset \(warning)")
        }
        var metadata = Metadata()
        metadata.items = [XMPFields.item(key: "_PMX", bytes: bytes)]
        metadata.fillReadOnlyFields(from: MediaFormat.readOnlyFieldSources)
        touch(metadata)
    }

    /// What a reader promises about the properties of anything it returns.
    static func check(_ properties: MediaProperties, warnings: [MediaWarning]) {
        if let duration = properties.duration {
            precondition(duration.isFinite && duration >= 0, "duration \(duration)")
        }
        for (name, value) in [
            ("bitrate", properties.bitrate), ("sampleRate", properties.sampleRate),
            ("channels", properties.channels), ("bitsPerSample", properties.bitsPerSample),
            ("width", properties.width), ("height", properties.height),
        ] {
            if let value { precondition(value >= 0, "\(name) \(value)") }
        }
        for warning in warnings { _ = warning.description }
    }

    /// Reads every normalized field, which runs the converters, and the
    /// bytes of every picture (read from the file on demand).
    static func touch(_ metadata: Metadata) {
        for field in MetadataField.allCases { _ = metadata[field] }
        for picture in metadata.artwork {
            if let data = try? picture.readBytes() {
                precondition(data.count == picture.byteCount, "picture: \(data.count) bytes read, byteCount \(picture.byteCount)")
            }
        }
        for item in metadata.items { _ = "\(item.value)" }
    }

    /// Runs async `body` to completion from the synchronous fuzzer callback.
    static func blocking<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
        let box = ResultBox<Value>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.result = Result<Value, any Error>.success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    /// The chosen target, from MDKIT_FUZZ_TARGET.
    nonisolated(unsafe) static var target: FuzzTarget!
    /// MDKIT_FUZZ_VERBOSE=1 prints each input's outcome (for triage).
    static let verbose = ProcessInfo.processInfo.environment["MDKIT_FUZZ_VERBOSE"] == "1"
    /// The bytes of the input being run (for the one target that needs no file).
    nonisolated(unsafe) static var currentInput = Data()
    /// The file each input is written to (in /dev/shm when there is one).
    nonisolated(unsafe) static var inputURL: URL!

    static func setUp() {
        let name = ProcessInfo.processInfo.environment["MDKIT_FUZZ_TARGET"] ?? ""
        guard let chosen = targets.first(where: { $0.name == name }) else {
            var message = "MDKIT_FUZZ_TARGET must name a target; got '\(name)'. Targets:\n"
            for target in targets { message += "  \(target.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(target.summary)\n" }
            FileHandle.standardError.write(Data(message.utf8))
            exit(2)
        }
        target = chosen
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let folder = URL(fileURLWithPath: base).appendingPathComponent("mdkit-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        inputURL = folder.appendingPathComponent("input.\(chosen.fileExtension)")
        atexit { try? FileManager.default.removeItem(at: Fuzz.inputURL.deletingLastPathComponent()) }
    }

    static func write(_ bytes: UnsafeRawBufferPointer) {
        let descriptor = open(inputURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(descriptor >= 0, "cannot write \(inputURL.path): errno \(errno)")
        var done = 0
        while done < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            precondition(written > 0, "write failed: errno \(errno)")
            done += written
        }
        close(descriptor)
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    Fuzz.setUp()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    Fuzz.write(input)
    if Fuzz.target.name == "timedjson" || Fuzz.target.name == "xmp" { Fuzz.currentInput = Data(input) }
    do {
        try Fuzz.target.run(Fuzz.inputURL)
        if Fuzz.verbose { print("\(Fuzz.target.name): read") }
    } catch let error as MediaError {
        // The clean way to refuse an input.
        if Fuzz.verbose { print("\(Fuzz.target.name): \(error)") }
    } catch {
        fatalError("\(Fuzz.target.name): not a MediaError: \(type(of: error)): \(error)")
    }
    return 0
}
