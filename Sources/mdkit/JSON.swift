import Foundation

/// A JSON value with ordered object keys, for output that reads the same
/// every run. Absent fields are simply not added.
indirect enum JSON {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case array([JSON])
    case object([(String, JSON)])

    /// Appends the serialized value to `output`; `indent` nil gives one line.
    func write(to output: inout String, indent: Int? = nil, level: Int = 0) {
        var bytes: [UInt8] = []
        write(to: &bytes, indent: indent, level: level)
        output += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the serialized value to `output` as UTF-8 (the fast path: no
    /// string is built).
    func write(to output: inout [UInt8], indent: Int? = nil, level: Int = 0) {
        switch self {
        case .string(let text): JSON.writeString(text, to: &output)
        case .integer(let value): JSON.append(String(value), to: &output)
        case .number(let value):
            if value.isFinite {
                JSON.append(value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value), to: &output)
            } else {
                JSON.append("null", to: &output)
            }
        case .bool(let value): JSON.append(value ? "true" : "false", to: &output)
        case .array(let values):
            writeContainer(open: 0x5B, close: 0x5D, count: values.count, to: &output, indent: indent, level: level) { index, output in
                values[index].write(to: &output, indent: indent, level: level + 1)
            }
        case .object(let pairs):
            writeContainer(open: 0x7B, close: 0x7D, count: pairs.count, to: &output, indent: indent, level: level) { index, output in
                JSON.writeString(pairs[index].0, to: &output)
                output.append(0x3A)                         // ":"
                if indent != nil { output.append(0x20) }
                pairs[index].1.write(to: &output, indent: indent, level: level + 1)
            }
        }
    }

    private func writeContainer(open: UInt8, close: UInt8, count: Int, to output: inout [UInt8], indent: Int?,
                                level: Int, element: (Int, inout [UInt8]) -> Void) {
        output.append(open)
        guard count > 0 else { output.append(close); return }
        for index in 0..<count {
            if index > 0 { output.append(0x2C) }          // ","
            if let indent { JSON.newline(spaces: indent * (level + 1), to: &output) }
            element(index, &output)
        }
        if let indent { JSON.newline(spaces: indent * level, to: &output) }
        output.append(close)
    }

    private static func append(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { output.append(contentsOf: $0) }
    }

    private static func newline(spaces: Int, to output: inout [UInt8]) {
        output.append(0x0A)
        output.append(contentsOf: repeatElement(0x20, count: spaces))
    }

    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(0x22)
        var text = text
        text.withUTF8 { bytes in
            var clean = bytes.startIndex                  // start of the bytes not yet copied
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean..<index]))
                switch byte {
                case 0x22: output.append(contentsOf: [0x5C, 0x22])
                case 0x5C: output.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: output.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: output.append(contentsOf: [0x5C, 0x72])
                case 0x09: output.append(contentsOf: [0x5C, 0x74])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    output.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
                }
                clean = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean...]))
        }
        output.append(0x22)
    }
}
