import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit fields [--json] [--markdown]`: the normalized field names and the
/// raw keys that hold each one in every format, from the library's key map
/// (``MetadataKeyMap/standard``, made from ``MediaFormat/all``).
struct FieldsCommand {
    static let usage = """
        usage: mdkit fields [--json | --markdown]

        Lists the field names `read` prints and `write --set`/`--remove` take,
        with the kind of value (text, integer, boolean, genre, artwork) and the
        raw keys that hold each field, per key space, most preferred first (a
        new value goes to the first key of the format's primary key space).
          --json      one object: {"fields": [{"name", "kind", "keys": {keySpace: [key, ...]}}]}
          --markdown  a Markdown table (docs/FIELDS.md is made from it)
        """

    var json = false
    var markdown = false

    init(arguments: [String]) throws(UsageError) {
        for argument in arguments {
            switch argument {
            case "--json": json = true
            case "--markdown": markdown = true
            default: throw UsageError("unknown argument '\(argument)'\n\n\(Self.usage)")
            }
        }
        if json && markdown { throw UsageError("--json and --markdown exclude each other") }
    }

    /// Every key space of the registered formats that holds some field, in
    /// registry order (`xmp` holds whole packets, no field's key).
    static var keySpaces: [MetadataKeySpace] {
        let holding = Set(MetadataKeyMap.standard.keys.values.flatMap { $0.map(\.keySpace) })
        var spaces: [MetadataKeySpace] = []
        for format in MediaFormat.all {
            for space in format.keySpaces where !spaces.contains(space) && holding.contains(space) { spaces.append(space) }
        }
        return spaces
    }

    /// The keys of `field` in `space`, most preferred first.
    static func keys(of field: MetadataField, in space: MetadataKeySpace) -> [String] {
        (MetadataKeyMap.standard.keys[field] ?? []).filter { $0.keySpace == space }.map(\.key)
    }

    func run() async -> Int32 {
        let spaces = Self.keySpaces
        if json {
            var writer = JSONWriter(indent: 2)
            writer.beginObject()
            writer.key("fields")
            writer.beginArray()
            for field in MetadataField.allCases {
                writer.beginObject()
                writer.member("name", field.rawValue)
                writer.member("kind", field.kind.rawValue)
                writer.key("keys")
                writer.beginObject()
                for space in spaces {
                    let keys = Self.keys(of: field, in: space)
                    if keys.isEmpty { continue }
                    writer.key(space.rawValue)
                    writer.beginArray()
                    for key in keys { writer.string(key) }
                    writer.end(array: true)
                }
                writer.end(array: false)
                writer.end(array: false)
            }
            writer.end(array: true)
            writer.end(array: false)
            StandardStream.output.write(Data(writer.bytes + Array("\n".utf8)))
            return 0
        }
        var text = ""
        if markdown {
            text += "| field | kind | " + spaces.map(\.rawValue).joined(separator: " | ") + " |\n"
            text += "|---|---|" + String(repeating: "---|", count: spaces.count) + "\n"
            for field in MetadataField.allCases {
                let cells = spaces.map { space in
                    Self.keys(of: field, in: space).map { "`\($0.replacingScalar("|", with: "\\|"))`" }.joined(separator: ", ")
                }
                text += "| \(field.rawValue) | \(field.kind.rawValue) | " + cells.joined(separator: " | ") + " |\n"
            }
        } else {
            for field in MetadataField.allCases {
                text += "\(field.rawValue) (\(field.kind.rawValue))\n"
                for space in spaces {
                    let keys = Self.keys(of: field, in: space)
                    if !keys.isEmpty { text += "  \(space.rawValue): " + keys.joined(separator: ", ") + "\n" }
                }
            }
        }
        StandardStream.output.write(text: text)
        return 0
    }
}
