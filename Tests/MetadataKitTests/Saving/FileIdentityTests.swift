import Foundation
import Testing

@testable import MetadataKit

/// "The same file" is decided by device and inode, not by the spelling of a
/// path: on a case-insensitive volume (APFS, HFS+ by default) `Song.m4a` and
/// `song.m4a` are one file. Linux volumes are case-sensitive, so a hard link
/// (one file, two names) stands in for the other spelling here.
@Suite struct FileIdentityTests {
    /// A file and a hard link to it in a new folder.
    static func fileAndLink(copying fixture: String) throws -> (file: URL, link: URL) {
        let directory = try TestSupport.makeTemporaryDirectory()
        let file = directory.appendingPathComponent("Song." + (fixture as NSString).pathExtension)
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent(fixture), to: file)
        let other = directory.appendingPathComponent("song." + (fixture as NSString).pathExtension)
        try #require(link(file.path, other.path) == 0)
        return (file, other)
    }

    @Test func fileURLsAreTheSameFileByInodeNotSpelling() throws {
        let (file, other) = try Self.fileAndLink(copying: "valid/sample.m4a")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        #expect(file.standardizedFileURL.path != other.standardizedFileURL.path)
        #expect(Platform.isSameFile(file, other))
        let copy = file.deletingLastPathComponent().appendingPathComponent("copy.m4a")
        try FileManager.default.copyItem(at: file, to: copy)
        #expect(!Platform.isSameFile(file, copy), "the same bytes in another file")
        let missing = file.deletingLastPathComponent().appendingPathComponent("gone.m4a")
        #expect(Platform.isSameFile(missing, missing), "the same spelling needs no stat")
        #expect(!Platform.isSameFile(missing, file))
    }

    /// MP4 refuses chapter pictures that are not the file's own; one read
    /// through another name of the same file is its own.
    @Test func anMP4ChapterPictureFromTheFileUnderAnotherNameIsTheFilesOwn() throws {
        let (file, other) = try Self.fileAndLink(copying: "valid/sample.m4a")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let source = try FileSource(url: other)
        let picture = Artwork(
            source: source, url: other, offset: 0, byteCount: 16, mimeType: "image/png", pictureType: .other, description: "")
        let tables = [ChapterTable(chapters: [Chapter(start: 0, titles: [.init("One")], artwork: picture)])]
        try MP4EditPlanner.refuseNewChapterPictures(tables, url: file)
        let copy = file.deletingLastPathComponent().appendingPathComponent("copy.m4a")
        try FileManager.default.copyItem(at: file, to: copy)
        let foreign = Artwork(
            source: try FileSource(url: copy), url: copy, offset: 0, byteCount: 16, mimeType: "image/png", pictureType: .other,
            description: "")
        let foreignTables = [ChapterTable(chapters: [Chapter(start: 0, titles: [.init("One")], artwork: foreign)])]
        #expect(throws: MediaError.self) { try MP4EditPlanner.refuseNewChapterPictures(foreignTables, url: file) }
    }

    /// An ID3 picture frame read through one name matches the same picture
    /// read through another name of the file (kept as it is), not one of
    /// another file at the same offset.
    @Test func anID3PictureReadThroughAnotherNameIsTheSamePicture() throws {
        let (file, other) = try Self.fileAndLink(copying: "valid/sample.mp3")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        func item(_ url: URL) throws -> MetadataItem {
            let artwork = Artwork(
                source: try FileSource(url: url), url: url, offset: 10, byteCount: 32, mimeType: "image/jpeg",
                pictureType: .frontCover, description: "")
            return MetadataItem(keySpace: .id3, key: "APIC", value: .picture(artwork), dataType: .jpeg)
        }
        #expect(ID3v2TagWriter.same(try item(file), try item(other)))
        let copy = file.deletingLastPathComponent().appendingPathComponent("copy.mp3")
        try FileManager.default.copyItem(at: file, to: copy)
        #expect(!ID3v2TagWriter.same(try item(file), try item(copy)))
    }

    /// `save(to:)` promises the original is untouched: a destination that is
    /// the original under another name is refused before anything is written.
    @Test func savingToAnotherNameOfTheSameFileIsRefused() async throws {
        let (file, other) = try Self.fileAndLink(copying: "valid/sample.mp3")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let before = try Data(contentsOf: file)
        var item = try await MediaItem.loaded(file)
        item.metadata.title = "Changed"
        let error = await #expect(throws: MediaError.self) {
            try await item.save(to: other, options: SaveOptions(durability: .noSync))
        }
        #expect(error?.code == .invalidValue && error?.reason.contains("the file itself") == true)
        #expect(try Data(contentsOf: file) == before, "the original is untouched")
        let symlink = file.deletingLastPathComponent().appendingPathComponent("alias.mp3")
        try FileManager.default.createSymbolicLink(at: symlink, withDestinationURL: file)
        await #expect(throws: MediaError.self) { try await item.save(to: symlink, options: SaveOptions(durability: .noSync)) }
        #expect(try Data(contentsOf: file) == before)
        let entries = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(Set(entries) == ["Song.mp3", "song.mp3", "alias.mp3"], "no temporary file left")
        // Another file is written as before.
        let copy = file.deletingLastPathComponent().appendingPathComponent("copy.mp3")
        try await item.save(to: copy, options: SaveOptions(durability: .noSync))
        #expect(try await MediaItem.loaded(copy).metadata.title == "Changed")
        #expect(try Data(contentsOf: file) == before)
    }

    /// An export is put in place as a save's temporary file is: its bytes
    /// synced before the rename, its folder after.
    @Test func aDurableReplaceSyncsTheFileThenRenamesThenSyncsTheFolder() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let temporary = directory.appendingPathComponent(".out.m4a.export-1").path
        let destination = directory.appendingPathComponent("out.m4a").path
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: temporary))
        try Data([9]).write(to: URL(fileURLWithPath: destination))
        var calls: [(path: String, renamed: Bool)] = []
        try FileIO.replaceDurably(temporary, as: destination) { path in
            calls.append((path, !FileManager.default.fileExists(atPath: temporary)))
        }
        #expect(calls.map(\.path) == [temporary, directory.path])
        #expect(calls.map(\.renamed) == [false, true], "the file before the rename, the folder after")
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data([1, 2, 3]))
        // A failed sync before the rename leaves the destination; one after it says the file may not survive a crash.
        try Data([4]).write(to: URL(fileURLWithPath: temporary))
        #expect(throws: MediaError.self) {
            try FileIO.replaceDurably(temporary, as: destination) { _ in throw MediaError(.io, "fsync failed") }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data([1, 2, 3]))
        var count = 0
        let error = #expect(throws: MediaError.self) {
            try FileIO.replaceDurably(temporary, as: destination) { _ in
                count += 1
                if count == 2 { throw MediaError(.io, "fsync failed") }
            }
        }
        #expect(error?.reason.contains("a crash may undo it") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data([4]))
        // The real syncs succeed.
        try Data([5]).write(to: URL(fileURLWithPath: temporary))
        try FileIO.replaceDurably(temporary, as: destination)
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data([5]))
    }
}
