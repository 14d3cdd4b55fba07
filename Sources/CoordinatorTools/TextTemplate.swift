/// Pages and files kept in files of their own (a storyboard's page, a new project's README) with the values
/// a run gives them.
package enum TextTemplate {
    /// `template` (a page kept in a file of its own) with each `{{name}}` in it replaced by `values[name]`,
    /// in one pass: a value is never read for names again (it may hold an app's own text), and a name the
    /// values do not have stays as it is written.
    package static func filling(_ template: String, with values: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstRange(of: "{{") {
            out += rest[..<open.lowerBound]
            let after = rest[open.upperBound...]
            guard let close = after.firstRange(of: "}}"), let value = values[String(after[..<close.lowerBound])] else {
                out += "{{"
                rest = after
                continue
            }
            out += value
            rest = after[close.upperBound...]
        }
        return out + rest
    }
}
