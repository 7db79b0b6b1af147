import Foundation
import Testing

@testable import MetadataKit

/// The XML reader and the RDF property reader of XMP packets, on hand-written
/// packets: both serializations, arrays, entities, and hostile documents
/// (bounded work, warnings with offsets, no crash).
struct XMPPacketTests {
    static let rdfOpen = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        """
    static let rdfClose = "</rdf:RDF></x:xmpmeta>"

    static let dynamicMedia = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        \(rdfOpen)
        <rdf:Description rdf:about="" xmlns:dm="http://ns.adobe.com/xmp/1.0/DynamicMedia/"
          xmlns:b="http://ns.adobe.com/xap/1.0/" xmlns:d="http://purl.org/dc/elements/1.1/"
          dm:album="Alb &amp; um" dm:trackNumber="3/12" b:CreateDate="2024-05-01T12:00:00Z">
        <d:title><rdf:Alt><rdf:li xml:lang="de">Titel</rdf:li><rdf:li xml:lang="x-default">Title</rdf:li></rdf:Alt></d:title>
        <d:creator><rdf:Seq><rdf:li>One</rdf:li><rdf:li><![CDATA[Two <b>]]></rdf:li></rdf:Seq></d:creator>
        <dm:genre>Rock&#x20;&#233;</dm:genre><dm:tempo>120.6</dm:tempo><dm:discNumber>2</dm:discNumber>
        <dm:Tracks><rdf:Bag><rdf:li rdf:parseType="Resource"><dm:trackName>t</dm:trackName></rdf:li></rdf:Bag></dm:Tracks>
        <!-- a comment --><d:rights rdf:resource="http://example.com/license"/>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """

    @Test func readsAttributesElementsArraysAndEntitiesUnderAnyPrefix() {
        let packet = XMPPacket(Array(Self.dynamicMedia.utf8))
        #expect(packet.warnings.isEmpty)
        #expect(packet.values(XMPPacket.dublinCore, "title") == ["Title", "Titel"])
        #expect(packet.values(XMPPacket.dublinCore, "creator") == ["One", "Two <b>"])
        #expect(packet.values(XMPPacket.dynamicMedia, "album") == ["Alb & um"])
        #expect(packet.values(XMPPacket.dynamicMedia, "genre") == ["Rock é"])
        #expect(packet.values(XMPPacket.dublinCore, "rights") == ["http://example.com/license"])
        #expect(packet.values(XMPPacket.dynamicMedia, "Tracks") == []) // a structure: not read
    }

    @Test func fieldsFromThePacket() {
        let fields = XMPFields.fields(of: XMPPacket(Array(Self.dynamicMedia.utf8)))
        let byField = Dictionary(fields.map { ($0.field, $0.value) }) { first, _ in first }
        #expect(byField[.title] == .text("Title"))
        #expect(byField[.artist] == .texts(["One", "Two <b>"]))
        #expect(byField[.album] == .text("Alb & um"))
        #expect(byField[.genre] == .text("Rock é"))
        #expect(byField[.date] == .text("2024-05-01T12:00:00Z"))
        #expect(byField[.trackNumber] == .integer(3))
        #expect(byField[.trackCount] == .integer(12))
        #expect(byField[.discNumber] == .integer(2))
        #expect(byField[.discCount] == nil)
        #expect(byField[.bpm] == .integer(121))
        #expect(byField[.copyright] == .text("http://example.com/license"))
    }

    @Test func theNativeTagWinsAndXMPFillsTheRest() {
        var metadata = Metadata(items: [
            MetadataItem(keySpace: .id3, key: "TIT2", value: .string("Native"), dataType: .utf8),
            XMPFields.item(.id3, key: XMPFields.id3Key, bytes: Array(Self.dynamicMedia.utf8)),
        ])
        #expect(metadata.title == "Native")
        #expect(metadata.album == nil)
        metadata.fillReadOnlyFields(from: MediaFormat.readOnlyFieldSources)
        #expect(metadata.title == "Native")
        #expect(metadata.album == "Alb & um")
        #expect(metadata.artist == "One; Two <b>")
    }

    @Test func aPacketThatIsNotUTF8IsKeptAsBytes() throws {
        let item = XMPFields.item(key: "_PMX", bytes: [0x3C, 0xFF, 0xFE, 0x3E])
        #expect(item.value == .data(Data([0x3C, 0xFF, 0xFE, 0x3E])))
        #expect(item.dataType == .binary)
        #expect(try XMPFields.bytes(of: item) == [0x3C, 0xFF, 0xFE, 0x3E])
    }

    /// Every prefix of a valid packet reads without a crash; only prefixes
    /// that end inside markup warn, each warning inside the prefix.
    @Test func everyPrefixReadsBoundedWithWarningsInside() {
        let bytes = Array(Self.dynamicMedia.utf8)
        var warned = 0
        for count in 0...bytes.count {
            let packet = XMPPacket(Array(bytes[..<count]), baseOffset: 1000)
            for warning in packet.warnings {
                #expect((1000...1000 + Int64(count)).contains(warning.offset ?? -1), "prefix \(count): \(warning)")
            }
            if !packet.warnings.isEmpty { warned += 1 }
        }
        #expect(warned > bytes.count / 2)
        #expect(XMPPacket(bytes).values(XMPPacket.dublinCore, "title") == ["Title", "Titel"])
    }

    @Test func deepNestingIsCutAtTheLimit() {
        let depth = 100_000
        let text = Self.rdfOpen + String(repeating: "<a>", count: depth) + "deep" + String(repeating: "</a>", count: depth) + Self.rdfClose
        let packet = XMPPacket(Array(text.utf8), baseOffset: 10)
        let warning = packet.warnings.first { $0.code == .tooDeep }
        #expect(warning != nil)
        // The 63rd <a> is the first one skipped (x:xmpmeta and rdf:RDF are the first two levels).
        #expect(warning?.offset == 10 + Int64(Self.rdfOpen.utf8.count) + 3 * Int64(XMLReader.maximumDepth - 2))
    }

    @Test func entitiesOfADoctypeAreNeverExpanded() {
        var declarations = #"<!ENTITY a0 "aaaaaaaaaaaaaaaa">"#
        for level in 1...30 { declarations += "<!ENTITY a\(level) \"" + String(repeating: "&a\(level - 1);", count: 10) + "\">" }
        let text =
            "<!DOCTYPE x [\(declarations)]>" + Self.rdfOpen
            + #"<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:title="&a30;"/>"# + Self.rdfClose
        let packet = XMPPacket(Array(text.utf8))
        #expect(packet.values(XMPPacket.dublinCore, "title") == ["&a30;"])
        #expect(packet.warnings.map(\.code) == [.unsupportedFeature, .malformed])
        #expect(packet.warnings.first?.offset == 0)
    }

    @Test func hugeAttributesAndManyAttributesAreBounded() {
        let huge = String(repeating: "x", count: 4 << 20)
        var text = Self.rdfOpen + #"<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:title=""# + huge + "\""
        for index in 0..<5000 { text += " dc:p\(index)=\"v\"" }
        text += "/>" + Self.rdfClose
        let packet = XMPPacket(Array(text.utf8))
        #expect(packet.values(XMPPacket.dublinCore, "title").first?.utf8.count == 4 << 20)
        #expect(packet.values(XMPPacket.dublinCore, "p1000") == ["v"])
        #expect(packet.values(XMPPacket.dublinCore, "p1100") == [])
        #expect(packet.warnings.map(\.code) == [.sizeOutOfRange])
    }

    @Test func unterminatedMarkupEndsTheDocumentWithAWarning() {
        for (text, code) in [
            (Self.rdfOpen + "<rdf:Description", MediaError.Code.truncated),
            (Self.rdfOpen + #"<rdf:Description a="open"#, .truncated),
            (Self.rdfOpen + "<!-- never closed", .truncated),
            (Self.rdfOpen + "<![CDATA[ never closed", .truncated),
            (Self.rdfOpen + "</rdf:Description>" + Self.rdfClose, .malformed),
        ] {
            let packet = XMPPacket(Array(text.utf8), baseOffset: 5)
            #expect(packet.warnings.first?.code == code, "\(text)")
            #expect((packet.warnings.first?.offset ?? 0) >= 5 + Int64(Self.rdfOpen.utf8.count))
        }
    }

    @Test func tooManyElementsStopTheRead() {
        let text = Self.rdfOpen + String(repeating: "<a/>", count: XMLReader.maximumElements + 10) + Self.rdfClose
        let packet = XMPPacket(Array(text.utf8))
        // The cut leaves x:xmpmeta and rdf:RDF open.
        #expect(packet.warnings.map(\.code) == [.sizeOutOfRange, .truncated])
    }

    @Test func randomBytesNeverCrash() {
        var random = SplitMix64(state: 39)
        let seed = Array(Self.dynamicMedia.utf8)
        for _ in 0..<2000 {
            var bytes = seed
            for _ in 0..<8 { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            let packet = XMPPacket(bytes)
            #expect(packet.warnings.count <= 16)
            _ = XMPFields.fields(of: packet)
        }
    }
}

/// Every prefix of a WAV whose `_PMX` chunk holds a packet (the packet cut
/// anywhere) loads or fails with a MediaError; the whole file gives the
/// packet's fields, read-only.
struct XMPContainerPrefixTests {
    @Test func everyPrefixOfAWAVWithAPacket() async throws {
        let packet = Array(XMPPacketTests.dynamicMedia.utf8)
        let file = RIFFBuilder.wave([
            RIFFBuilder.fmt(), RIFFBuilder.chunk("data", [UInt8](repeating: 0, count: 16)), RIFFBuilder.chunk("_PMX", packet),
        ])
        var loaded = 0
        for count in stride(from: 0, through: file.count, by: 7) + [file.count] {
            do {
                let item = try await MediaItem(loading: Data(file[..<count]), filename: "prefix.wav")
                for warning in item.warnings { #expect((0...Int64(count)).contains(warning.offset ?? 0), "\(count): \(warning)") }
                loaded += 1
            } catch {
                continue
            }
        }
        #expect(loaded > 0)
        let whole = try await MediaItem(loading: Data(file), filename: "whole.wav")
        #expect(whole.metadata.items.map(\.key) == ["_PMX"])
        #expect(whole.metadata.title == "Title")
        #expect(whole.metadata.album == "Alb & um")
        #expect(whole.warnings.isEmpty)
    }
}
