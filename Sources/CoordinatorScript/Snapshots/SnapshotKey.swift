/// A secret key that signs snapshots and makes a runtime refuse any it did not sign
/// (``ScriptRuntime/snapshotKey``, `coordrun --snapshot-key FILE`).
///
/// A snapshot is a JSON document anyone can edit: without a key, a restore trusts it as far as the app's
/// own steps and checks go (a forged document with the scripts' public digest can name any steps and any
/// inputs the screens accept). With a key, ``ScriptRuntime/snapshot()`` adds
/// `"signature": "hmac-sha256:…"`, an HMAC-SHA256 of the document's content, and
/// ``ScriptRuntime/restore(_:)`` refuses a snapshot without one or with one that does not match: a
/// snapshot altered in any value, or signed with another key. Whitespace and the order of fields do not
/// count, only what the document says.
///
/// ```swift
/// runtime.snapshotKey = try SnapshotKey(contentsOf: "/run/secrets/snapshot-key")
/// let json = try runtime.snapshot()   // signed
/// try other.restore(json)             // refused unless `other` has the same key
/// ```
public struct SnapshotKey: Sendable {
    private let bytes: [UInt8]

    /// The fewest bytes a key may have.
    public static let minimumBytes = 16

    /// A key of these bytes (at least ``minimumBytes``: a random 32 are best, `head -c 32 /dev/urandom`).
    public init(_ bytes: [UInt8]) throws {
        guard bytes.count >= Self.minimumBytes else {
            throw SnapshotError(.badKey, """
                a snapshot key has at least \(Self.minimumBytes) bytes (this one has \(bytes.count)): make one with \
                `head -c 32 /dev/urandom > FILE`
                """)
        }
        self.bytes = bytes
    }

    /// The key in the file at `path`: its bytes, without one line end at the end (a key written with
    /// `echo` works as the same key without it).
    public init(contentsOf path: String) throws {
        guard let text = readFileBytes(path, limit: 1 << 16) else {
            throw SnapshotError(.unreadable, "cannot read the snapshot key \(path) (missing, unreadable, or over 64 KiB)")
        }
        var bytes = text
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        try self.init(bytes)
    }

    /// The field a signed snapshot carries its signature in.
    static let field = "signature"

    /// The signature of a snapshot's content: an HMAC-SHA256 of the document without its signature, as
    /// compact JSON (fields sorted, one spelling for each value).
    func signature(of document: FlowRecord) -> String {
        let content = FlowValue.record(FlowRecord(document.fields.filter { $0.key != Self.field }.map { ($0.key, $0.value) }))
        return "hmac-sha256:" + SHA256.hex(SHA256.hmac(key: bytes, content.json.utf8))
    }

    /// Checks a snapshot's signature: it must have one, and it must be the signature of its content.
    func check(_ document: FlowRecord) throws {
        guard let given = document[Self.field]?.stringValue else {
            throw SnapshotError(.unsigned, "the snapshot is not signed, and this runtime restores only snapshots signed with its key")
        }
        let expected = signature(of: document)
        // Compared in time that does not depend on where they differ.
        var difference = given.utf8.count ^ expected.utf8.count
        for (a, b) in zip(given.utf8, expected.utf8) { difference |= Int(a ^ b) }
        guard difference == 0 else {
            throw SnapshotError(.badSignature, "the snapshot's signature does not match its content: it was altered, or signed with another key")
        }
    }
}
