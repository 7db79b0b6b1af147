import MetadataKit

/// A JSON value with ordered object keys, for output that reads the same
/// every run. Absent fields are simply not added. Written with the
/// library's one ``JSONWriter``.
indirect enum JSON {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])

    /// Appends the serialized value to `output`; `indent` nil gives one line.
    func write(to output: inout String, indent: Int? = nil, level: Int = 0) {
        var writer = JSONWriter(indent: indent, level: level)
        write(to: &writer)
        output += String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Writes the value through `writer` (as one element or object value).
    func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let text): writer.string(text)
        case .integer(let value): writer.integer(value)
        case .number(let value): writer.number(value)
        case .bool(let value): writer.bool(value)
        case .null: writer.null()
        case .array(let values):
            writer.beginArray()
            for value in values { value.write(to: &writer) }
            writer.end(array: true)
        case .object(let pairs):
            writer.beginObject()
            for (key, value) in pairs {
                writer.key(key)
                value.write(to: &writer)
            }
            writer.end(array: false)
        }
    }
}
