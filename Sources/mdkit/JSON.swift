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
        switch self {
        case .string(let text): JSON.writeString(text, to: &output)
        case .integer(let value): output += String(value)
        case .number(let value):
            if value.isFinite {
                output += value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
            } else {
                output += "null"
            }
        case .bool(let value): output += value ? "true" : "false"
        case .array(let values):
            writeContainer(open: "[", close: "]", count: values.count, to: &output, indent: indent, level: level) { index, output in
                values[index].write(to: &output, indent: indent, level: level + 1)
            }
        case .object(let pairs):
            writeContainer(open: "{", close: "}", count: pairs.count, to: &output, indent: indent, level: level) { index, output in
                JSON.writeString(pairs[index].0, to: &output)
                output += indent == nil ? ":" : ": "
                pairs[index].1.write(to: &output, indent: indent, level: level + 1)
            }
        }
    }

    private func writeContainer(open: String, close: String, count: Int, to output: inout String, indent: Int?,
                                level: Int, element: (Int, inout String) -> Void) {
        output += open
        guard count > 0 else { output += close; return }
        let newline = indent.map { JSON.newline(spaces: $0 * (level + 1)) } ?? ""
        for index in 0..<count {
            if index > 0 { output += "," }
            output += newline
            element(index, &output)
        }
        if let indent { output += JSON.newline(spaces: indent * level) }
        output += close
    }

    /// "\n" and `spaces` spaces; the common depths are made once.
    private static let newlines: [String] = (0..<16).map { "\n" + String(repeating: " ", count: $0) }

    private static func newline(spaces: Int) -> String {
        spaces < newlines.count ? newlines[spaces] : "\n" + String(repeating: " ", count: spaces)
    }

    private static func needsEscaping(_ text: String) -> Bool {
        func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C { return true }
            return false
        }
        var text = text
        return text.withUTF8(scan)
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        if !needsEscaping(text) {
            output += text
            output += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
