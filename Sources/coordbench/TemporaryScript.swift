import Foundation

/// Runs `body` with the path of a script file holding `source`, in a folder of its own that is removed after.
func withTemporaryScript<R>(_ name: String, _ source: String, _ body: (String) throws -> R) throws -> R {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coordbench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let script = folder.appendingPathComponent(name).path
    try source.write(toFile: script, atomically: true, encoding: .utf8)
    return try body(script)
}
