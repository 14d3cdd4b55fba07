/// Text helpers shared by the runtime's reports and the tools.
extension String {
    /// Without leading and trailing blanks and tabs.
    package var trimmed: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }

    package func padding(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
