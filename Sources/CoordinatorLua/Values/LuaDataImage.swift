import CCoordinatorLua
import CCoordinatorLuaGlue

/// Plain data — booleans, numbers, strings, lists and records with string keys — compiled into bytes that
/// a Lua value is compared with in one walk in C: the fast way to ask "does this table still hold exactly
/// the data I converted from it?" without converting it again.
///
/// Build an image with the value's structure, then compare values on the stack with
/// ``LuaStack/matches(_:at:levels:)``:
///
/// ```swift
/// var image = LuaDataImage()
/// image.record(count: 2) { fields in
///     fields.field("name") { $0.string("Kazan") }
///     fields.field("tags") { tags in tags.list(count: 1) { $0.item { $0.string("city") } } }
/// }
/// // stack.matches(image, at: -1) is true for { name = "Kazan", tags = { "city" } } and false for any
/// // other value, including that table with one more field.
/// ```
///
/// A list matches a table whose pairs are exactly 1...n, met in that order by a traversal (what table
/// constructors and appends build; a list stored out of order merely fails to match). A record matches a
/// table whose keys are exactly its field names (strings). Integers and floats are told apart, as
/// `math.type` does. Access is raw: metatables are not consulted.
package struct LuaDataImage: Sendable {
    var bytes: [UInt8] = []

    package init() {}

    package mutating func bool(_ value: Bool) { bytes.append(value ? UInt8(ascii: "t") : UInt8(ascii: "f")) }

    package mutating func integer(_ value: Int) {
        bytes.append(UInt8(ascii: "i"))
        withUnsafeBytes(of: Int64(value)) { bytes.append(contentsOf: $0) } // SAFETY[c-buffer]
    }

    package mutating func number(_ value: Double) {
        bytes.append(UInt8(ascii: "d"))
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) } // SAFETY[c-buffer]
    }

    package mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "s"))
        appendCount(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }

    /// A list of `count` items: `items` adds each with ``item(_:)``.
    package mutating func list(count: Int, _ items: (inout LuaDataImage) -> Void) {
        bytes.append(UInt8(ascii: "l"))
        appendCount(count)
        items(&self)
    }

    /// A record of `count` fields: `fields` adds each with ``field(_:_:)``, each name once.
    package mutating func record(count: Int, _ fields: (inout LuaDataImage) -> Void) {
        bytes.append(UInt8(ascii: "r"))
        appendCount(count)
        fields(&self)
    }

    /// One item of a list: `value` adds exactly one value.
    package mutating func item(_ value: (inout LuaDataImage) -> Void) {
        sized(value)
    }

    /// One field of a record: `value` adds exactly one value.
    package mutating func field(_ name: String, _ value: (inout LuaDataImage) -> Void) {
        appendCount(name.utf8.count)
        bytes.append(contentsOf: name.utf8)
        sized(value)
    }

    private mutating func sized(_ value: (inout LuaDataImage) -> Void) {
        let mark = bytes.count
        appendCount(0)
        value(&self)
        let size = UInt32(truncatingIfNeeded: bytes.count - mark - 4)
        withUnsafeBytes(of: size) { for i in 0..<4 { bytes[mark + i] = $0[i] } } // SAFETY[c-buffer]
    }

    private mutating func appendCount(_ count: Int) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: count)) { bytes.append(contentsOf: $0) } // SAFETY[c-buffer]
    }
}

extension LuaStack {
    /// Whether the value at `index` is exactly the data of `image` (see ``LuaDataImage``), with its tables
    /// nested no deeper than `levels` (at most 64). Never raises; uses up to three stack slots per level.
    package func matches(_ image: LuaDataImage, at index: Int32, levels: Int = 64) -> Bool {
        image.bytes.withUnsafeBufferPointer { bytes in // SAFETY[c-buffer]
            guard let base = bytes.baseAddress, levels > 0 else { return false }
            return coordlua_image_matches(L, index, base, Int32(64 - min(levels, 64))) != 0
        }
    }
}
