import MetadataKit
import MetadataKitCatalog

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `mdkit query [--db PATH] [--json] SQL`
struct QueryCommand {
    static let usage = """
        usage: mdkit query [--db PATH] [--json] SQL

        Runs one SQL statement on a catalog made by `mdkit scan` (docs/CATALOG.md
        has the schema and example queries) and prints the rows: a header line
        and one tab-separated line per row (NULL as an empty field), or with
        --json one JSON object per line.
          --db PATH  the catalog (default: as for `mdkit scan`; postgresql://… for PostgreSQL)
        Exit status: 0 on success, 1 when the statement failed, 2 on a usage error.
        """

    var database: String?
    var json = false
    var sql = ""

    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        var statements: [String] = []
        while let argument = remaining.popFirst() {
            switch argument {
            case "--db":
                guard let value = remaining.popFirst() else { throw UsageError("--db needs a value\n\n\(Self.usage)") }
                database = value
            case "--json": json = true
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
            StandardStream.error.write(text: "mdkit: no catalog at \(path) (make one with mdkit scan)\n")
            return 1
        }
        var output: [UInt8] = []
        do {
            let catalog: SQLCatalog = postgreSQL ? try PostgreSQLCatalog(connection: path) : try SQLiteCatalog(path: path)
            let columns = try catalog.columns(sql)
            if !json { output += Array((columns.map { TerminalText.escape($0) }.joined(separator: "\t") + "\n").utf8) }
            let json = json
            try catalog.query(sql) { row in
                if json {
                    // A NULL column is left out of its object.
                    var writer = JSONWriter()
                    writer.beginObject()
                    for (name, value) in zip(columns, row) { if let value { writer.member(name, value) } }
                    writer.end(array: false)
                    output += writer.bytes + [0x0A]
                } else {
                    let fields = row.map { TerminalText.escape($0 ?? "") }
                    output += Array((fields.joined(separator: "\t") + "\n").utf8)
                }
                if output.count > 1 << 16 {
                    StandardStream.output.write(Data(output))
                    output.removeAll(keepingCapacity: true)
                }
            }
        } catch {
            StandardStream.error.write(text: "mdkit: \(error.message)\n")
            return 1
        }
        StandardStream.output.write(Data(output))
        return 0
    }
}
