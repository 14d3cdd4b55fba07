/// How a screen type says it looks, for whatever draws it as a prototype (the web preview, a storyboard, a
/// host's own mock-up): every part optional, every name one the type declares.
///
/// ```swift
/// try type.setLook(ScreenLook(title: "Transfer", fields: [.init(label: "From", input: "account")],
///                             list: .init(from: "recipients", title: "name", subtitle: "bank"),
///                             controls: ["pin": .secure, "rating": .stars]))
/// ```
package struct ScreenLook: Equatable, Sendable {
    /// A field shown with its label: an input's value.
    package struct Field: Equatable, Sendable {
        /// What it is called on the screen.
        package let label: String
        /// The input whose value it shows.
        package let input: String
        /// A field labelled `label` (default: the input's name) showing input `input`.
        package init(label: String? = nil, input: String) {
            self.label = label ?? input
            self.input = input
        }
    }

    /// A list drawn as rows: each item of an input, by two of its fields.
    package struct List: Equatable, Sendable {
        /// The input holding the items.
        package let from: String
        /// The field each row is titled by (nil: the item itself, or its `name` or `title`).
        package let title: String?
        /// The field under it (nil: none).
        package let subtitle: String?
        /// The rows of input `from`, titled by `title` with `subtitle` under it.
        package init(from: String, title: String? = nil, subtitle: String? = nil) {
            (self.from, self.title, self.subtitle) = (from, title, subtitle)
        }
    }

    /// The control an output's payload is entered with.
    package enum Control: String, CaseIterable, Sendable {
        /// A text field for any value (the default).
        case text
        /// A field that does not show what is typed (a PIN, a password).
        case secure
        /// One to five stars: the payload is the number chosen.
        case stars
        /// A number stepped down and up: the payload is the number.
        case stepper
        /// A switch: the payload is true or false.
        case toggle
        /// A button: the payload is the output's first example (or none).
        case button
    }

    /// The title drawn at the top (nil: the type's title).
    package let title: String?
    /// Text drawn under it (nil: the screen's rendering).
    package let text: String?
    /// The fields, in order.
    package let fields: [Field]
    /// The list, if one is drawn.
    package let list: List?
    /// The control of each output that takes a value, by output name.
    package let controls: [String: Control]

    /// A look; every part optional.
    package init(title: String? = nil, text: String? = nil, fields: [Field] = [], list: List? = nil, controls: [String: Control] = [:]) {
        (self.title, self.text, self.fields, self.list, self.controls) = (title, text, fields, list, controls)
    }
}
