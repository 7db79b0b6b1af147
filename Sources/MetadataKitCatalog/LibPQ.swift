#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libpq, the PostgreSQL client library, loaded when a PostgreSQL catalog is
/// first opened (`dlopen`) instead of linked: every `mdkit` run would
/// otherwise load it and the twenty libraries it needs (TLS, Kerberos,
/// LDAP), a few milliseconds of start-up that the common `mdkit read` must
/// not pay. Only libpq's stable C API is used (PostgreSQL documentation,
/// "libpq — C Library", §34.1–34.3 and §34.10), with its types as they cross
/// the C ABI: `PGconn *` and `PGresult *` as opaque pointers, the status
/// enums as `Int32`.
struct LibPQ: @unchecked Sendable {
    typealias Connect = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    typealias ConnectionInt = @convention(c) (OpaquePointer?) -> Int32
    typealias ConnectionText = @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    typealias ConnectionVoid = @convention(c) (OpaquePointer?) -> Void
    typealias Exec = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?
    typealias ResultInt = @convention(c) (OpaquePointer?) -> Int32
    typealias ResultText = @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    typealias ResultVoid = @convention(c) (OpaquePointer?) -> Void
    typealias Prepare =
        @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32, UnsafePointer<UInt32>?)
        -> OpaquePointer?
    typealias ExecPrepared =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?, Int32
        ) -> OpaquePointer?
    typealias ResultCell = @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    typealias ResultValue = @convention(c) (OpaquePointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    typealias ResultName = @convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?
    typealias ResultType = @convention(c) (OpaquePointer?, Int32) -> UInt32
    typealias PutCopyData = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32
    typealias PutCopyEnd = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    typealias ConnectionResult = @convention(c) (OpaquePointer?) -> OpaquePointer?

    let connectdb: Connect
    let status: ConnectionInt
    let errorMessage: ConnectionText
    let finish: ConnectionVoid
    let exec: Exec
    let resultStatus: ResultInt
    let resultErrorMessage: ResultText
    let clear: ResultVoid
    let prepare: Prepare
    let execPrepared: ExecPrepared
    let describePrepared: Exec
    let ntuples: ResultInt
    let nfields: ResultInt
    let getisnull: ResultCell
    let getvalue: ResultValue
    let fname: ResultName
    let ftype: ResultType
    let putCopyData: PutCopyData
    let putCopyEnd: PutCopyEnd
    let getResult: ConnectionResult

    /// The library, or why it could not be loaded.
    static let shared: Result<LibPQ, CatalogError> = load(from: names)

    /// Where libpq is looked for: the run-time linker's search first.
    static let names: [String] = CatalogPlatform.libpqNames

    /// Loads the first of `names` that `dlopen` finds and looks up every function.
    static func load(from names: [String]) -> Result<LibPQ, CatalogError> {
        guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else {
            return .failure(
                CatalogError(
                    .unavailable,
                    "PostgreSQL catalogs need libpq, which was not found (Debian: apt install libpq5; macOS: brew install libpq)"
                ))
        }
        func symbol<Function>(_ name: String, _: Function.Type) throws(CatalogError) -> Function {
            guard let address = dlsym(handle, name) else { throw CatalogError(.unavailable, "libpq has no \(name): too old a version") }
            return unsafeBitCast(address, to: Function.self)
        }
        do throws(CatalogError) {
            return .success(
                LibPQ(
                    connectdb: try symbol("PQconnectdb", Connect.self),
                    status: try symbol("PQstatus", ConnectionInt.self),
                    errorMessage: try symbol("PQerrorMessage", ConnectionText.self),
                    finish: try symbol("PQfinish", ConnectionVoid.self),
                    exec: try symbol("PQexec", Exec.self),
                    resultStatus: try symbol("PQresultStatus", ResultInt.self),
                    resultErrorMessage: try symbol("PQresultErrorMessage", ResultText.self),
                    clear: try symbol("PQclear", ResultVoid.self),
                    prepare: try symbol("PQprepare", Prepare.self),
                    execPrepared: try symbol("PQexecPrepared", ExecPrepared.self),
                    describePrepared: try symbol("PQdescribePrepared", Exec.self),
                    ntuples: try symbol("PQntuples", ResultInt.self),
                    nfields: try symbol("PQnfields", ResultInt.self),
                    getisnull: try symbol("PQgetisnull", ResultCell.self),
                    getvalue: try symbol("PQgetvalue", ResultValue.self),
                    fname: try symbol("PQfname", ResultName.self),
                    ftype: try symbol("PQftype", ResultType.self),
                    putCopyData: try symbol("PQputCopyData", PutCopyData.self),
                    putCopyEnd: try symbol("PQputCopyEnd", PutCopyEnd.self),
                    getResult: try symbol("PQgetResult", ConnectionResult.self)))
        } catch {
            return .failure(error)
        }
    }
}

// libpq's functions and constants under their C names, for
// `PostgreSQLDatabase`, which loads the library (``LibPQ/shared``) before
// its first call. Text results that libpq gives as NULL read as "".

/// `ConnStatusType` and `ExecStatusType` values used here (libpq-fe.h).
let CONNECTION_OK: Int32 = 0
let PGRES_COMMAND_OK: Int32 = 1
let PGRES_TUPLES_OK: Int32 = 2
let PGRES_COPY_IN: Int32 = 4

private var pq: LibPQ {
    switch LibPQ.shared {
    case .success(let library): return library
    case .failure(let error): preconditionFailure("libpq used without a check that it loaded: \(error)")
    }
}

nonisolated(unsafe) private let emptyText: UnsafePointer<CChar> = {
    let text = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    text.pointee = 0
    return UnsafePointer(text)
}()

private func text(_ pointer: UnsafeMutablePointer<CChar>?) -> UnsafePointer<CChar> {
    pointer.map { UnsafePointer($0) } ?? emptyText
}

func PQconnectdb(_ info: UnsafePointer<CChar>?) -> OpaquePointer? { pq.connectdb(info) }
func PQstatus(_ connection: OpaquePointer?) -> Int32 { pq.status(connection) }
func PQerrorMessage(_ connection: OpaquePointer?) -> UnsafePointer<CChar> { text(pq.errorMessage(connection)) }
func PQfinish(_ connection: OpaquePointer?) { pq.finish(connection) }
func PQexec(_ connection: OpaquePointer?, _ sql: UnsafePointer<CChar>?) -> OpaquePointer? { pq.exec(connection, sql) }
func PQresultStatus(_ result: OpaquePointer?) -> Int32 { pq.resultStatus(result) }
func PQresultErrorMessage(_ result: OpaquePointer?) -> UnsafePointer<CChar> { text(pq.resultErrorMessage(result)) }
func PQclear(_ result: OpaquePointer?) { pq.clear(result) }
func PQprepare(
    _ connection: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ sql: UnsafePointer<CChar>?, _ count: Int32,
    _ types: UnsafePointer<UInt32>?
) -> OpaquePointer? { pq.prepare(connection, name, sql, count, types) }
func PQexecPrepared(
    _ connection: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ count: Int32,
    _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ lengths: UnsafePointer<Int32>?, _ formats: UnsafePointer<Int32>?,
    _ resultFormat: Int32
) -> OpaquePointer? { pq.execPrepared(connection, name, count, values, lengths, formats, resultFormat) }
func PQdescribePrepared(_ connection: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> OpaquePointer? {
    pq.describePrepared(connection, name)
}
func PQntuples(_ result: OpaquePointer?) -> Int32 { pq.ntuples(result) }
func PQnfields(_ result: OpaquePointer?) -> Int32 { pq.nfields(result) }
func PQgetisnull(_ result: OpaquePointer?, _ row: Int32, _ column: Int32) -> Int32 { pq.getisnull(result, row, column) }
func PQgetvalue(_ result: OpaquePointer?, _ row: Int32, _ column: Int32) -> UnsafePointer<CChar> {
    text(pq.getvalue(result, row, column))
}
/// The type OID of a result column (`pg_type.oid`: 20 int8, 701 float8, 17 bytea, …).
func PQftype(_ result: OpaquePointer?, _ column: Int32) -> UInt32 { pq.ftype(result, column) }
func PQfname(_ result: OpaquePointer?, _ column: Int32) -> UnsafePointer<CChar> { text(pq.fname(result, column)) }
func PQputCopyData(_ connection: OpaquePointer?, _ bytes: UnsafePointer<CChar>?, _ count: Int32) -> Int32 {
    pq.putCopyData(connection, bytes, count)
}
func PQputCopyEnd(_ connection: OpaquePointer?, _ error: UnsafePointer<CChar>?) -> Int32 { pq.putCopyEnd(connection, error) }
func PQgetResult(_ connection: OpaquePointer?) -> OpaquePointer? { pq.getResult(connection) }
