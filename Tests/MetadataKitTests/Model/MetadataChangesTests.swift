import Foundation
import Testing

@testable import MetadataKit

@Suite struct MetadataChangesTests {
    func item(_ space: MetadataKeySpace, _ key: String, _ value: MetadataValue) -> MetadataItem {
        MetadataItem(keySpace: space, key: key, value: value, dataType: .utf8)
    }

    @Test func changedFieldsReplaceItemsInEveryKeySpaceThatHoldsThem() throws {
        let loaded = Metadata(items: [
            item(.iTunes, "©nam", .string("Old")), item(.quickTimeUserData, "©nam", .string("Old")),
            item(.iTunes, "©ART", .string("Artist")), item(.iTunes, "----:com.apple.iTunes:MOOD", .string("Calm")),
        ])
        var edited = loaded
        edited.title = "New"
        edited.album = "Added"
        edited.artist = nil
        let items = try MetadataChanges().resolvedItems(
            loaded: loaded, edited: edited, keySpaces: [.iTunes, .quickTimeMetadata, .quickTimeUserData])
        #expect(items.map(\.key) == ["©nam", "©nam", "----:com.apple.iTunes:MOOD", "©alb"])
        #expect(items.map(\.keySpace) == [.iTunes, .quickTimeUserData, .iTunes, .iTunes])
        #expect(items.filter { $0.key == "©nam" }.map(\.value) == [.string("New"), .string("New")])
        #expect(Metadata(items: items).album == "Added")
    }

    @Test func mdtaOnlyFilesAreUpdatedInMdta() throws {
        let loaded = Metadata(items: [item(.quickTimeMetadata, "com.apple.quicktime.title", .string("Old"))])
        var edited = loaded
        edited.title = "New"
        let items = try MetadataChanges().resolvedItems(
            loaded: loaded, edited: edited, keySpaces: [.iTunes, .quickTimeMetadata, .quickTimeUserData])
        #expect(items == [item(.quickTimeMetadata, "com.apple.quicktime.title", .string("New"))])
    }

    @Test func trackNumberAndCountShareOneItem() throws {
        let loaded = Metadata(items: [item(.id3, "TRCK", .string("3/12")), item(.id3v1, "track", .integer(3))])
        var edited = loaded
        edited.trackNumber = 4
        var items = try MetadataChanges().resolvedItems(loaded: loaded, edited: edited, keySpaces: [.id3, .id3v1])
        #expect(items.first { $0.key == "TRCK" }?.value == .string("4/12"))
        #expect(items.first { $0.key == "track" }?.value == .integer(4))
        var removed = Metadata(items: items)
        let before = removed
        removed.trackNumber = nil
        items = try MetadataChanges().resolvedItems(loaded: before, edited: removed, keySpaces: [.id3, .id3v1])
        #expect(items.first { $0.key == "TRCK" }?.value == .string("/12"))
        #expect(Metadata(items: items).trackCount == 12)
        #expect(Metadata(items: items).trackNumber == nil)
    }
}
