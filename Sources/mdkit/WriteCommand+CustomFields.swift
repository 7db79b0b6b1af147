import MetadataKit

extension WriteCommand {
    /// Parses the NAME=KEY of a `--field`: a new custom field, or one more
    /// key of a field named before.
    mutating func addCustomField(_ pair: String) throws(UsageError) {
        guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
            throw UsageError("--field needs NAME=KEY (e.g. energy=id3:TXXX:ENERGY), not '\(pair)'")
        }
        let name = String(pair[..<equals])
        guard !name.contains(":") else { throw UsageError("--field: a custom field's name has no ':' (got '\(name)')") }
        let (space, key) = try Self.rawKey(String(pair[pair.index(after: equals)...]))
        let rawKey = MetadataKeyMap.RawKey(space, key)
        if let index = customFields.firstIndex(where: { $0.name == name }) {
            customFields[index].keys.append(rawKey)
        } else {
            customFields.append((name, [rawKey]))
        }
    }

    /// The standard schema with the `--field`s registered; refuses a custom
    /// edit of a name no `--field` gives, and a field the schema refuses (a
    /// standard field's name, a key that holds a field already).
    func registeredSchema() throws(UsageError) -> MetadataSchema {
        var schema = MetadataSchema.standard
        for field in customFields {
            do {
                try schema.registerField(field.name, keys: field.keys)
            } catch {
                throw UsageError("--field \(field.name): \((error as? MediaError)?.message ?? "\(error)")")
            }
        }
        for edit in edits {
            switch edit {
            case .setCustom(let name, _), .removeCustom(let name):
                guard schema.customField(named: name) == nil else { continue }
                throw UsageError(
                    "'\(name)' is neither a field name nor a raw key keySpace:key (nor a custom field: name it with --field \(name)=KEY)")
            default: continue
            }
        }
        return schema
    }
}
