/// Element IDs of EBML (RFC 8794 §11.2) and Matroska (RFC 9559 §5.1, and
/// the Matroska element registry), with their length markers.
enum MatroskaID {
    // EBML header (RFC 8794 §11.2)
    static let ebml: UInt32 = 0x1A45_DFA3
    static let ebmlVersion: UInt32 = 0x4286
    static let ebmlReadVersion: UInt32 = 0x42F7
    static let ebmlMaxIDLength: UInt32 = 0x42F2
    static let ebmlMaxSizeLength: UInt32 = 0x42F3
    static let docType: UInt32 = 0x4282
    static let docTypeVersion: UInt32 = 0x4287
    static let docTypeReadVersion: UInt32 = 0x4285
    // Global elements (RFC 8794 §11.3)
    static let void: UInt32 = 0xEC
    static let crc32: UInt32 = 0xBF

    // Segment and its top-level children (RFC 9559 §5.1)
    static let segment: UInt32 = 0x1853_8067
    static let seekHead: UInt32 = 0x114D_9B74
    static let info: UInt32 = 0x1549_A966
    static let tracks: UInt32 = 0x1654_AE6B
    static let cluster: UInt32 = 0x1F43_B675
    static let cues: UInt32 = 0x1C53_BB6B
    static let attachments: UInt32 = 0x1941_A469
    static let chapters: UInt32 = 0x1043_A770
    static let tags: UInt32 = 0x1254_C367

    /// The IDs that may be children of a Segment (§5.1.1–§5.1.8).
    static let topLevel: Set<UInt32> = [seekHead, info, tracks, cluster, cues, attachments, chapters, tags]

    // SeekHead (§5.1.1)
    static let seek: UInt32 = 0x4DBB
    static let seekID: UInt32 = 0x53AB
    static let seekPosition: UInt32 = 0x53AC

    // Info (§5.1.2)
    static let timestampScale: UInt32 = 0x2A_D7B1
    static let duration: UInt32 = 0x4489
    static let title: UInt32 = 0x7BA9
    static let muxingApp: UInt32 = 0x4D80
    static let writingApp: UInt32 = 0x5741
    static let dateUTC: UInt32 = 0x4461

    // Tracks (§5.1.4)
    static let trackEntry: UInt32 = 0xAE
    static let trackNumber: UInt32 = 0xD7
    static let trackUID: UInt32 = 0x73C5
    static let trackType: UInt32 = 0x83
    static let flagEnabled: UInt32 = 0xB9
    static let flagDefault: UInt32 = 0x88
    static let flagForced: UInt32 = 0x55AA
    static let name: UInt32 = 0x536E
    static let language: UInt32 = 0x22_B59C
    static let languageBCP47: UInt32 = 0x22_B59D
    static let codecID: UInt32 = 0x86
    static let video: UInt32 = 0xE0
    static let pixelWidth: UInt32 = 0xB0
    static let pixelHeight: UInt32 = 0xBA
    static let audio: UInt32 = 0xE1
    static let samplingFrequency: UInt32 = 0xB5
    static let outputSamplingFrequency: UInt32 = 0x78B5
    static let channels: UInt32 = 0x9F
    static let bitDepth: UInt32 = 0x6264

    // Attachments (§5.1.6)
    static let attachedFile: UInt32 = 0x61A7
    static let fileDescription: UInt32 = 0x467E
    static let fileName: UInt32 = 0x466E
    static let fileMediaType: UInt32 = 0x4660
    static let fileData: UInt32 = 0x465C
    static let fileUID: UInt32 = 0x46AE

    // Chapters (§5.1.7)
    static let editionEntry: UInt32 = 0x45B9
    static let editionUID: UInt32 = 0x45BC
    static let editionFlagHidden: UInt32 = 0x45BD
    static let editionFlagDefault: UInt32 = 0x45DB
    static let editionFlagOrdered: UInt32 = 0x45DD
    static let editionDisplay: UInt32 = 0x4520
    static let editionString: UInt32 = 0x4521
    static let editionLanguageIETF: UInt32 = 0x45E4
    static let chapterAtom: UInt32 = 0xB6
    static let chapterUID: UInt32 = 0x73C4
    static let chapterStringUID: UInt32 = 0x5654
    static let chapterTimeStart: UInt32 = 0x91
    static let chapterTimeEnd: UInt32 = 0x92
    static let chapterFlagHidden: UInt32 = 0x98
    static let chapterFlagEnabled: UInt32 = 0x4598
    static let chapterDisplay: UInt32 = 0x80
    static let chapString: UInt32 = 0x85
    static let chapLanguage: UInt32 = 0x437C
    static let chapLanguageBCP47: UInt32 = 0x437D

    // Tags (§5.1.8)
    static let tag: UInt32 = 0x7373
    static let targets: UInt32 = 0x63C0
    static let targetTypeValue: UInt32 = 0x68CA
    static let targetType: UInt32 = 0x63CA
    static let tagTrackUID: UInt32 = 0x63C5
    static let tagEditionUID: UInt32 = 0x63C9
    static let tagChapterUID: UInt32 = 0x63C4
    static let tagAttachmentUID: UInt32 = 0x63C6
    static let simpleTag: UInt32 = 0x67C8
    static let tagName: UInt32 = 0x45A3
    static let tagLanguage: UInt32 = 0x447A
    static let tagLanguageBCP47: UInt32 = 0x447B
    static let tagDefault: UInt32 = 0x4484
    static let tagString: UInt32 = 0x4487
    static let tagBinary: UInt32 = 0x4485
}
