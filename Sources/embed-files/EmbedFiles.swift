// The build tool behind EmbedFilesPlugin:   embed-files OUTPUT.swift FILE...
// Writes `enum EmbeddedFile` with one `static let` per file, its text as a Swift string literal, named by
// the file's name in lower camel case (`state_codec.lua` -> `stateCodecLua`, `page.html` -> `pageHtml`).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The constant's name for a file: the words of its name (split at what is not a letter or a digit), the
/// first in lower case, the others capitalized.
func constantName(of path: String) -> String {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let words = name.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    guard let first = words.first else { return "_" }
    let joined = first.lowercased() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    return joined.first?.isNumber == true ? "_" + joined : joined
}

/// `text` as a one-line Swift string literal.
func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

/// Says what went wrong on standard error and ends the build step.
func fail(_ message: String) -> Never {
    let text = "embed-files: " + message + "\n"
    _ = write(2, text, text.utf8.count)
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let output = arguments.first else { fail("usage: embed-files OUTPUT.swift FILE...") }
var seen: [String: String] = [:]
var source = "// Written by embed-files (EmbedFilesPlugin) from the target's files of other languages.\n\n"
source += "/// The target's files of other languages, as text.\nenum EmbeddedFile {\n"
for path in arguments.dropFirst() {
    let name = constantName(of: path)
    if let other = seen[name] { fail("\(path) and \(other) would both be EmbeddedFile.\(name): rename one") }
    seen[name] = path
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    guard let text = String(validating: data, as: UTF8.self) else { fail("\(path) is not UTF-8") }
    source += "    /// " + (path.split(separator: "/").last.map(String.init) ?? path) + "\n"
    source += "    static let \(name) = \(literal(text))\n"
}
source += "}\n"
guard FileManager.default.createFile(atPath: output, contents: Data(source.utf8)) else { fail("cannot write \(output)") }
