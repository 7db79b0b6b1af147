import Testing

@testable import MetadataKit

@Suite struct GenreTests {
    @Test func listHas192NamesAndLooksUpBothWays() {
        #expect(Genre.names.count == 192)
        #expect(Genre(id3Index: 17)?.name == "Rock")
        #expect(Genre(iTunesID: 18)?.name == "Rock")
        #expect(Genre(name: "rock").id3Index == 17)
        #expect(Genre(name: "rock").name == "Rock")
        #expect(Genre(name: "AlternRock").id3Index == 40)
        #expect(Genre(id3Index: 191)?.name == "Psybient")
        #expect(Genre(id3Index: 192) == nil)
        #expect(Genre(name: "Vaporwave").id3Index == nil)
    }

    @Test(arguments: [
        ("17", ["Rock"]), ("(17)", ["Rock"]), ("(17)Rock", ["Rock"]), ("(17)Hard Rocking", ["Hard Rocking"]),
        ("(RX)", ["Remix"]), ("(CR)", ["Cover"]), ("(17)(18)", ["Rock", "Techno"]),
        ("Synthwave", ["Synthwave"]), ("((foo)", ["(foo)"]), ("(999)", ["(999)"]),
    ])
    func id3GenreStrings(text: String, expected: [String]) {
        #expect(GenreMetadataConverter.parseID3(text).map(\.name) == expected)
    }
}
