/// The fields of a record (``FlowValue/record(_:)``) and a screen's inputs: names to values, kept sorted by
/// name, so two records with the same fields are equal field by field and print the same way.
///
/// Records in flows are small (a user, a city, a screen's two or three inputs), so the fields are one
/// short array searched in order, not a hash table: building one costs an allocation, not a hash per field.
/// It reads like a dictionary:
///
/// ```swift
/// var user: FlowRecord = ["name": "Ann", "city": ["name": "Moscow"]]
/// user["city"]?["name"]?.string   // "Moscow"
/// user["age"] = 30                // adds a field; assigning nil removes one
/// for (name, value) in user { print(name, value) }   // age, city, name: sorted by name
/// ```
public struct FlowRecord: Sendable {
    /// One field. A struct, not a tuple: arrays of tuples are copied and destroyed through generic
    /// runtime code, element by element.
    public struct Field: Sendable, Hashable {
        /// The field's name.
        public var key: String
        /// The field's value.
        public var value: FlowValue
        /// A field named `key` holding `value`.
        @inlinable public init(_ key: String, _ value: FlowValue) { self.key = key; self.value = value }
    }

    /// The fields, sorted by key (keys are unique).
    public private(set) var fields: [Field]

    /// An empty record.
    public init() { fields = [] }

    /// A record from name/value pairs in any order; where a name repeats, the last value wins.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, FlowValue) {
        fields = pairs.map { Field($0.0, $0.1) }
        normalize()
    }

    /// A record from an array of name/value pairs (as ``init(_:)-(S)`` does): the array's own, not the generic
    /// code a caller in another module would run unspecialized (six times slower for the records a snapshot builds).
    public init(_ pairs: [(String, FlowValue)]) {
        var fields: [Field] = []
        fields.reserveCapacity(pairs.count)
        for (key, value) in pairs { fields.append(Field(key, value)) }
        self.fields = fields
        normalize()
    }

    /// A record with a dictionary's fields.
    public init(_ dictionary: [String: FlowValue]) {
        fields = dictionary.map { Field($0.key, $0.value) }
        fields.sort { $0.key < $1.key }
    }

    /// Fields in any order, added one by one (a bridge reading a table builds a record so); ``finish()``
    /// sorts them. A repeated name keeps its last value.
    package struct Builder {
        @usableFromInline var fields: [Field] = []
        /// An empty builder with room for `capacity` fields.
        @inlinable package init(capacity: Int = 0) { fields.reserveCapacity(capacity) }
        /// Adds a field (a later one with the same key wins).
        @inlinable package mutating func add(_ key: String, _ value: FlowValue) { fields.append(Field(key, value)) }
        /// The record of the fields added.
        package consuming func finish() -> FlowRecord { FlowRecord(sorting: fields) }
    }

    init(sorting fields: [Field]) {
        self.fields = fields
        normalize()
    }

    private mutating func normalize() {
        guard fields.count > 1 else { return }
        var sorted = true
        for i in 1..<fields.count where !(fields[i - 1].key < fields[i].key) { sorted = false; break }
        if sorted { return }
        if fields.count <= 16 {
            // Insertion sort: stable, and no allocation for the small records flows carry. Swaps move the
            // fields without retaining or releasing anything.
            for i in 1..<fields.count {
                var j = i
                while j > 0 && fields[j].key < fields[j - 1].key { fields.swapAt(j, j - 1); j -= 1 }
            }
        } else {
            let indexed = fields.enumerated().sorted { $0.element.key != $1.element.key ? $0.element.key < $1.element.key : $0.offset < $1.offset }
            fields = indexed.map(\.element)
        }
        // Among repeated names (kept in their given order by the stable sort) the last one stays.
        guard fields.indices.dropFirst().contains(where: { fields[$0 - 1].key == fields[$0].key }) else { return }
        var out = 0
        for i in fields.indices {
            if out > 0 && fields[out - 1].key == fields[i].key { fields[out - 1] = fields[i] } else { fields[out] = fields[i]; out += 1 }
        }
        fields.removeLast(fields.count - out)
    }

    /// Where `key` is, or where it would go.
    @inline(__always)
    private func position(of key: String) -> (index: Int, found: Bool) {
        if fields.count <= 8 {
            for i in fields.indices {
                let k = fields[i].key
                if k == key { return (i, true) }
                if key < k { return (i, false) }
            }
            return (fields.count, false)
        }
        var low = 0, high = fields.count
        while low < high {
            let mid = (low + high) / 2
            let k = fields[mid].key
            if k == key { return (mid, true) }
            if k < key { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }

    /// The value of a field, or nil; assigning nil removes the field.
    public subscript(key: String) -> FlowValue? {
        get {
            let (index, found) = position(of: key)
            return found ? fields[index].value : nil
        }
        set {
            let (index, found) = position(of: key)
            switch (found, newValue) {
            case (true, let value?): fields[index].value = value
            case (true, nil): fields.remove(at: index)
            case (false, let value?): fields.insert(Field(key, value), at: index)
            case (false, nil): break
            }
        }
    }

    /// The field names, sorted.
    public var keys: [String] { fields.map(\.key) }
    /// The values, in the order of their names.
    public var values: [FlowValue] { fields.map(\.value) }
    /// The fields as a dictionary.
    public var dictionary: [String: FlowValue] { Dictionary(uniqueKeysWithValues: fields.map { ($0.key, $0.value) }) }
}

extension FlowRecord: RandomAccessCollection {
    public typealias Element = (key: String, value: FlowValue)
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { fields.count }
    @inlinable public subscript(position: Int) -> Element { (fields[position].key, fields[position].value) }
}

extension FlowRecord: Hashable {
    public static func == (a: FlowRecord, b: FlowRecord) -> Bool {
        a.fields == b.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
    }
}

extension FlowRecord: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, FlowValue)...) { self.init(elements) }
}

extension FlowRecord: CustomStringConvertible {
    /// Swift literal syntax, keys sorted: `["city": ["name": "Moscow"], "name": "Ann"]`.
    public var description: String { FlowValue.record(self).description }
}
