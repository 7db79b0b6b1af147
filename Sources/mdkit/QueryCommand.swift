import MetadataKit
import MetadataKitCatalog

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit query [--db PATH] [--json | --jsonl] SQL`
struct QueryCommand {
    static let usage = """
        usage: mdkit query [--db PATH] [--json | --jsonl] SQL

        Runs one SQL statement on a catalog made by `mdkit scan` (docs/CATALOG.md
        has the schema and example queries) and prints the rows: a header line and
        one tab-separated line per row (NULL as an empty field; values shown as the
        README's CLI section says, a tab as \\t, a line break as \\n).
          --json     one JSON array of objects, one per row
          --jsonl    one JSON object per line (JSON Lines)
                     Values keep their SQL types: integers and reals as numbers, NULL
                     as null, text as strings, blobs as base64 strings.
          --db PATH  the catalog (default: as for `mdkit scan`; postgresql://… for PostgreSQL)
        More than one statement ('select 1; select 2') is refused.
        Exit status: 0 on success, 1 when the statement failed, 2 on a usage error
        (more than one statement too).
        """

    enum Output { case table, json, jsonLines }

    var database: String?
    var output = Output.table
    var sql = ""

    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        var statements: [String] = []
        while let argument = remaining.popFirst() {
            switch argument {
            case "--db":
                guard let value = remaining.popFirst() else { throw UsageError("--db needs a value\n\n\(Self.usage)") }
                database = value
            case "--json", "--jsonl":
                let chosen: Output = argument == "--json" ? .json : .jsonLines
                if output != .table && output != chosen { throw UsageError("--json and --jsonl exclude each other") }
                output = chosen
            case _ where argument.hasPrefix("--"): throw UsageError("unknown option '\(argument)'\n\n\(Self.usage)")
            default: statements.append(argument)
            }
        }
        guard statements.count == 1 else { throw UsageError("give one SQL statement\n\n\(Self.usage)") }
        sql = statements[0]
    }

    func run() async -> Int32 {
        let path = database ?? CatalogLocation.defaultPath()
        let postgreSQL = PostgreSQLCatalog.isConnectionString(path)
        guard postgreSQL || FileManager.default.fileExists(atPath: path) else {
            StandardStream.error.write(text: "mdkit query: no catalog at \(path) (make one with mdkit scan)\n")
            return 1
        }
        var bytes: [UInt8] = []
        var rows = 0
        do {
            let catalog: SQLCatalog = postgreSQL ? try PostgreSQLCatalog(connection: path) : try SQLiteCatalog(path: path)
            if let count = try catalog.statementCount(sql), count > 1 {
                StandardStream.error.write(text: "mdkit query: give one SQL statement, not \(count) (run them one at a time)\n")
                return 2
            }
            let columns = try catalog.columns(sql)
            let output = output
            switch output {
            case .table: bytes += Array((columns.map { TerminalText.escape($0) }.joined(separator: "\t") + "\n").utf8)
            case .json: bytes.append(0x5B) // "["
            case .jsonLines: break
            }
            try catalog.rows(sql) { row in
                switch output {
                case .table:
                    bytes += Array((row.map(Self.shown).joined(separator: "\t") + "\n").utf8)
                case .json, .jsonLines:
                    var writer = JSONWriter(indent: output == .json ? 2 : nil, level: output == .json ? 1 : 0)
                    writer.beginObject()
                    for (name, value) in zip(columns, row) {
                        writer.key(name)
                        Self.write(value, to: &writer)
                    }
                    writer.end(array: false)
                    if output == .json { bytes += Array((rows == 0 ? "\n  " : ",\n  ").utf8) }
                    bytes += writer.bytes
                    if output == .jsonLines { bytes.append(0x0A) }
                }
                rows += 1
                if bytes.count > 1 << 16 {
                    StandardStream.output.write(Data(bytes))
                    bytes.removeAll(keepingCapacity: true)
                }
            }
            if output == .json { bytes += Array((rows == 0 ? "]\n" : "\n]\n").utf8) }
        } catch {
            StandardStream.output.write(Data(bytes))
            StandardStream.error.write(text: "mdkit query: \(error.message)\n")
            return 1
        }
        StandardStream.output.write(Data(bytes))
        return 0
    }

    /// A value in the table: NULL empty, blobs in base64, text through ``TerminalText``.
    static func shown(_ cell: SQLCell) -> String {
        switch cell {
        case .null: ""
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let text): TerminalText.escape(text)
        case .blob(let bytes): Data(bytes).base64EncodedString()
        }
    }

    /// A value in JSON: numbers as numbers, NULL as null, blobs as base64 strings.
    static func write(_ cell: SQLCell, to writer: inout JSONWriter) {
        switch cell {
        case .null: writer.null()
        case .integer(let value): writer.integer(value)
        case .real(let value): writer.number(value)
        case .text(let text): writer.string(text)
        case .blob(let bytes): writer.string(Data(bytes).base64EncodedString())
        }
    }
}
