/// The preview's page: one self-contained document (no CDN, nothing from the internet). It draws the state
/// `GET /state` and the WebSocket `/live` give, and sends each click as an action (`POST /action`). Every
/// text it shows is set as text (`textContent`), never as markup: screen titles, inputs and messages are
/// data.
enum Page {
    /// The page, carrying `token` (hex) for its requests.
    static func html(token: String) -> String {
        html.replacingOccurrences(of: #"data-token="""#, with: #"data-token=""# + token + #"""#)
    }

    /// preview.html, beside this file: the document with its style and script.
    static let html = EmbeddedFile.previewHtml
}
