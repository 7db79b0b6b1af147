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

    /// Every listed name is found in any case, as the listed spelling (the
    /// index lowercases names byte by byte: they must all be ASCII).
    @Test func everyNameIsFoundInAnyCase() {
        for (index, name) in Genre.names.enumerated() {
            #expect(name.utf8.allSatisfy { $0 < 0x80 }, "\(name) is not ASCII")
            for spelling in [name, name.uppercased(), name.lowercased()] {
                let genre = Genre(name: spelling)
                #expect(genre.id3Index == index && genre.name == name, "\(spelling)")
            }
        }
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
