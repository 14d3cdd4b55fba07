import CoordinatorCore
import CoordinatorLua

extension SecretParts {
    /// What a declaration's `secret` field says (an output's, a request's): `true` (the whole value) or
    /// `{ "password", ... }` (those fields of a record `value`); nil when it has none. `place` names the
    /// declaration in messages, `value` what it carries ("payload", "answer's value").
    init?(declared field: LuaValue, in place: String, of value: String) throws {
        switch field {
        case .nil: return nil
        case .boolean(true): self = .whole
        case .table(let list):
            let names = try list.decode([LuaValue].self)
            guard !names.isEmpty, names.allSatisfy({ $0.stringValue != nil }) else {
                throw LuaError(.runtime, "\(place): secret = { 'field', ... } names the \(value)'s secret fields (strings)")
            }
            self = .fields(Set(names.compactMap(\.stringValue)))
        default: throw LuaError(.runtime, "\(place): secret is true (the whole \(value)) or a list of the \(value)'s field names")
        }
    }
}
