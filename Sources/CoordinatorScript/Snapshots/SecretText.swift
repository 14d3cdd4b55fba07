#if canImport(Glibc)
import Glibc
#endif
import CoordinatorCore
import CoordinatorLua

/// How a secret a user typed is written where it must not appear (``FlowValue/luaLiteral(secret:)``).
package enum SecretText {
    /// What the REPL's history, the preview and the flow graph show in a secret's place.
    package static func mask(_ name: String) -> String { "\"•••\"" }

    /// `payload` as `spec` lets it be shown: each secret part replaced by the mask (`"•••"`).
    package static func shown(_ payload: FlowValue?, of spec: OutputSpec?) -> FlowValue? {
        guard let spec, spec.secret != .nothing else { return payload }
        func masked(_ value: FlowValue) -> FlowValue {
            switch value {
            case .record(let fields):
                if SecretParts.name(ofMarker: value) != nil { return .string("•••") }
                return .record(FlowRecord(fields.map { ($0.key, masked($0.value)) }))
            case .list(let items): return .list(items.map(masked))
            default: return value
            }
        }
        return spec.recorded(payload).map(masked)
    }

    /// The environment variable a recorded test reads a secret from: `COORDRUN_SECRET_password`.
    package static func variable(_ name: String) -> String {
        // Byte by byte, as the generated Lua (`name:gsub("[^%w]", "_")`) makes it.
        "COORDRUN_SECRET_" + String(decoding: name.utf8.map { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? byte : UInt8(ascii: "_")
        }, as: UTF8.self)
    }

    /// The secrets of a snapshot's restore where nobody can be asked (exploration, the preview): each
    /// from its ``variable(_:)``, or an error naming the variable when it is unset.
    package static func fromEnvironment(_ secret: SnapshotSecret) throws -> FlowValue {
        let variable = variable(secret.name)
        guard let value = getenv(variable) else {
            throw LuaError(.runtime, "set \(variable) to \(secret) (a snapshot never holds it)")
        }
        return .string(String(cString: value))
    }

    /// The Lua expression a recorded test reads a secret with: the variable's value, or an error naming
    /// the variable when it is unset.
    package static func read(_ name: String) -> String {
        let variable = variable(name)
        let missing = LuaSyntax.quoted("set " + variable + " to the secret '" + name + "' this test types")
        return "(os.getenv(" + LuaSyntax.quoted(variable) + ") or error(" + missing + "))"
    }

    /// The Lua function a generated test restores a snapshot's secrets with (`restore(json, SECRETS)`):
    /// each from its ``variable(_:)``, or an error naming it.
    package static let readFunction = """
        function(name) local v = "COORDRUN_SECRET_" .. name:gsub("[^%w]", "_") \
        return os.getenv(v) or error("set " .. v .. " to the secret '" .. name .. "' this test restores") end
        """
}
