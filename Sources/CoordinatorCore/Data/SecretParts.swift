/// What of a value is secret: a password in an output's payload (``OutputSpec/secret``), a token in a
/// request's answer (``RequestDeclaration/secret``). A secret part is never recorded in
/// ``Application/steps``, so never written into a snapshot: the steps hold a marker in its place,
/// `{"$secret": NAME}` (the field's name, or the output's or the request's for a whole secret value), and a
/// snapshot's restore asks for each secret again by that name.
public enum SecretParts: Hashable, Sendable {
    /// Nothing: the whole value is recorded.
    case nothing
    /// The whole value (`pin = { secret = true }`).
    case whole
    /// These fields of a record value (`login = { secret = { "password" } }`); a value that is not a record
    /// is recorded as it is.
    case fields(Set<String>)

    /// The key of the record that stands for a secret in a recorded value: `{"$secret": "password"}`.
    package static let markerKey = "$secret"

    /// The marker that stands for the secret `name`.
    package static func marker(_ name: String) -> FlowValue { [markerKey: .string(name)] }

    /// The name a recorded part stands for, when it is a marker (a record of the one field `$secret`).
    package static func name(ofMarker part: FlowValue) -> String? {
        guard case .record(let record) = part, record.fields.count == 1 else { return nil }
        return record[markerKey]?.stringValue
    }

    /// `value` as ``Application/steps`` records it: each secret part replaced by its marker (a field by its
    /// name, the whole value by `wholeName`).
    package func recorded(_ value: FlowValue?, wholeName: String) -> FlowValue? {
        switch (self, value) {
        case (.nothing, _), (_, nil): return value
        case (.whole, _): return Self.marker(wholeName)
        case (.fields(let names), .record(let record)?):
            return .record(FlowRecord(record.fields.map { names.contains($0.key) ? ($0.key, Self.marker($0.key)) : ($0.key, $0.value) }))
        case (.fields, _): return value
        }
    }

    /// A recorded value (``recorded(_:wholeName:)``) with each secret it stands for put back by
    /// `secret(name)`. Only the places declared secret are read as markers.
    package func restoring(_ value: FlowValue?, _ secret: (String) throws -> FlowValue) rethrows -> FlowValue? {
        switch (self, value) {
        case (.nothing, _), (_, nil): return value
        case (.whole, let part?): return try Self.name(ofMarker: part).map(secret) ?? part
        case (.fields(let names), .record(let record)?):
            return .record(FlowRecord(try record.fields.map { field in
                guard names.contains(field.key), let name = Self.name(ofMarker: field.value) else { return (field.key, field.value) }
                return (field.key, try secret(name))
            }))
        case (.fields, _): return value
        }
    }

    /// `value` with every string that `names` has a name for replaced by that name's marker, wherever it
    /// is (the storage's secret values in a step that carried one: ``AppStorage/hidingSecrets(in:)``).
    package static func hiding(_ names: [String: String], in value: FlowValue) -> FlowValue {
        switch value {
        case .string(let text): return names[text].map(marker) ?? value
        case .list(let items): return .list(items.map { hiding(names, in: $0) })
        case .record(let record): return .record(FlowRecord(record.fields.map { ($0.key, hiding(names, in: $0.value)) }))
        default: return value
        }
    }

    /// `value` with every marker whose name `names` holds put back by `secret(name)`, wherever it is (the
    /// storage's secrets a step carried).
    package static func restoringMarkers(in value: FlowValue, named names: Set<String>, _ secret: (String) throws -> FlowValue) rethrows -> FlowValue {
        if let name = name(ofMarker: value) { return names.contains(name) ? try secret(name) : value }
        switch value {
        case .list(let items): return .list(try items.map { try restoringMarkers(in: $0, named: names, secret) })
        case .record(let record):
            return .record(FlowRecord(try record.fields.map { ($0.key, try restoringMarkers(in: $0.value, named: names, secret)) }))
        default: return value
        }
    }

    /// The names of the markers in `value`, each once, in the order they appear (what a restore will ask for).
    package static func markerNames(in value: FlowValue) -> [String] {
        var names: [String] = []
        var pending = [value]
        while let next = pending.popLast() {
            if let name = name(ofMarker: next) {
                if !names.contains(name) { names.append(name) }
                continue
            }
            switch next {
            case .record(let record): pending += record.fields.map(\.value).reversed()
            case .list(let items): pending += items.reversed()
            default: break
            }
        }
        return names
    }
}
