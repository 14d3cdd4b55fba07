/// The preview's page: one self-contained document (no CDN, nothing from the internet). It draws the state
/// `GET /state` and the WebSocket `/live` give, and sends each click as an action (`POST /action`). Every
/// text it shows is set as text (`textContent`), never as markup: screen titles, inputs and messages are
/// data.
enum Page {
    /// The page, carrying `token` (hex) for its requests.
    static func html(token: String) -> String {
        html.replacingOccurrences(of: #"data-token="""#, with: #"data-token=""# + token + #"""#)
    }

    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>coordrun serve</title>
    <style>
      :root { color-scheme: light dark; --ink: #1c1c1e; --dim: #636366; --line: #d1d1d6; --accent: #0a5fc9; --bad: #c62828; --paper: #f2f2f7;
               --surface: #fff; --on-bad: #fff; --bar: #fafafa; --hover: #eef4ff; --frame: #111; --dimmed: #8e8e93; --mark: #ffe08a; }
      /* The dark palette, as iOS's: a black device, grey surfaces, lighter accents. */
      @media (prefers-color-scheme: dark) {
        :root { --ink: #f2f2f7; --dim: #aeaeb2; --line: #3a3a3c; --accent: #64a8ff; --bad: #ff6961; --paper: #000;
                --surface: #1c1c1e; --on-bad: #000; --bar: #2c2c2e; --hover: #243447; --frame: #3a3a3c; --dimmed: #48484a; --mark: #7a6300; }
      }
      * { box-sizing: border-box; }
      body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--paper); }
      header { padding: 10px 16px; background: var(--surface); border-bottom: 1px solid var(--line); display: flex; gap: 8px; align-items: center; }
      header h1 { font-size: 15px; margin: 0 12px 0 0; }
      header input { flex: 1; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
      main { display: flex; gap: 20px; padding: 16px; align-items: flex-start; flex-wrap: wrap; }
      #device { width: min(360px, 100%); height: min(700px, calc(100vh - 90px)); min-height: 480px; border: 10px solid var(--frame); border-radius: 36px; background: var(--surface); position: relative; overflow: hidden; display: flex; flex-direction: column; }
      #navbar { display: flex; align-items: center; height: 44px; border-bottom: 1px solid var(--line); padding: 0 8px; }
      #navbar h2 { flex: 1; text-align: center; font-size: 16px; margin: 0; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
      #back { border: none; background: none; color: var(--accent); font: inherit; cursor: pointer; min-width: 60px; text-align: left; }
      #back:disabled { visibility: hidden; }
      #body { flex: 1; min-height: 0; display: flex; }
      #content { flex: 1; min-width: 0; overflow: auto; padding: 12px; }
      /* A split in a regular window, as an iPad draws it: the columns before the detail side by side, each
         with its own title; the device as wide as a tablet. */
      #columns { display: none; }
      #device.split { width: min(760px, 100%); border-radius: 24px; }
      #device.split #columns { display: flex; flex: none; }
      .pane { flex: 0 0 clamp(120px, 30vw, 230px); overflow: auto; padding: 10px; border-right: 1px solid var(--line); background: var(--bar); }
      .pane h2 { font-size: 17px; margin: 2px 0 6px; }
      .pane .pane-text { color: var(--dim); white-space: pre-wrap; margin: 0 0 8px; }
      .pane .action { background: transparent; }
      #screen-text { white-space: pre-wrap; margin: 0 0 12px; }
      #inputs { font-size: 12px; color: var(--dim); margin-bottom: 12px; }
      #inputs dt { font-weight: 600; } #inputs dd { margin: 0 0 4px 10px; word-break: break-all; }
      .action { display: block; width: 100%; text-align: left; padding: 10px 12px; margin: 0 0 6px; border: 1px solid var(--line); border-radius: 10px; background: var(--surface); font: inherit; cursor: pointer; }
      .action.item { border-radius: 0; border-width: 0 0 1px; }
      .subtitle { display: block; color: var(--dim); font-size: 12px; }
      ul.rows { list-style: none; padding: 0; margin: 0 0 12px; font: inherit; } ul.rows li { padding: 8px 0; border-bottom: 1px solid var(--line); }
      .value .star { border: none; background: none; font-size: 22px; color: #d4a000; cursor: pointer; padding: 0 2px; }
      .value.control-stepper output { display: inline-block; min-width: 2em; text-align: center; }
      .action:hover { background: var(--hover); }
      .action { color: var(--ink); }
      .value { border: 1px solid var(--line); border-radius: 10px; padding: 8px; margin-bottom: 6px; }
      .value input { width: 100%; font: 12px ui-monospace, monospace; padding: 5px; margin: 4px 0; }
      .value .examples button, .value .send { font: 12px inherit; margin: 2px; }
      /* Pages, as a page view controller shows them: a dot a page under the content, the shown one filled;
         a swipe on the content (or the arrow keys) brings a neighbour, as do the chevrons beside the dots. */
      #pager { display: none; gap: 2px; justify-content: center; align-items: center; padding: 4px; }
      #pager button { border: none; background: none; font: 16px inherit; color: var(--accent); cursor: pointer; min-width: 24px; min-height: 24px; }
      #pager button.dot::before { content: ""; display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: var(--dimmed); }
      #pager button.dot.selected::before { background: var(--ink); }
      #tabbar { display: flex; border-top: 1px solid var(--line); height: 52px; }
      /* A tab bar as iOS draws it: each item a glyph over its title (the app gives no icons: the title's
         initial stands in), the selected one tinted, a badge at the glyph's corner. */
      #tabbar button { flex: 1; border: none; background: var(--bar); color: var(--dim); font: 10px inherit; cursor: pointer; display: flex; flex-direction: column; align-items: center; justify-content: center; gap: 2px; position: relative; }
      #tabbar button.selected { color: var(--accent); font-weight: 600; }
      #tabbar .glyph { position: relative; width: 24px; height: 24px; border-radius: 7px; border: 2px solid currentColor; font: 600 12px/20px inherit; text-align: center; }
      #tabbar .badge { position: absolute; top: 2px; left: calc(50% + 6px); margin: 0; }
      .badge { background: var(--bad); color: var(--on-bad); border-radius: 9px; padding: 0 6px; font-size: 11px; margin-left: 4px; }
      #sheet { flex: 1; min-height: 0; display: flex; flex-direction: column; background: var(--surface); position: relative; z-index: 1; }
      /* Behind a sheet, a form sheet or a popover: the screen that presented it, pushed back and dimmed. */
      #behind { display: none; }
      #device.modal:not(.fullScreen) #behind { display: block; position: absolute; inset: 8px 12px 0; border-radius: 12px 12px 0 0; background: var(--bar); color: var(--ink); text-align: center; padding-top: 10px; font-weight: 600; }
      #sheet-grip { display: none; text-align: center; padding: 6px; }
      /* A modal is drawn as iOS presents it: the presenter dimmed behind; a page sheet from near the top, at
         its medium detent from half way; a form sheet a centred card; a popover a card with its arrow; a
         full-screen cover over everything. One the user cannot swipe away has no grip. */
      #device.modal { background: var(--dimmed); }
      #device.modal #sheet { margin-top: 24px; border-radius: 12px 12px 0 0; }
      #device.modal #sheet-grip { display: block; }
      #device.modal.fixed #sheet-grip { display: none; }
      #device.modal.medium #sheet { flex: 0 0 52%; margin-top: auto; }
      #device.modal.formSheet #sheet { margin: 64px 18px; border-radius: 12px; }
      #device.modal.popover #sheet { flex: 0 1 auto; max-height: 70%; margin: 44px 26px auto; border-radius: 12px; box-shadow: 0 6px 24px rgba(0,0,0,.35); }
      #device.modal.popover #sheet::before { content: ""; position: absolute; top: -11px; left: 50%; margin-left: -11px; border: 11px solid transparent; border-top: 0; border-bottom-color: var(--surface); }
      #device.modal.popover #sheet-close { width: auto; height: auto; padding: 2px 8px; font: 11px inherit; color: var(--dim); background: none; }
      #device.modal.fullScreen { background: var(--surface); }
      #device.modal.fullScreen #sheet { margin: 0; border-radius: 0; }
      #device.modal #navbar { border-top: 1px solid var(--line); }
      #sheet-close { border: none; background: var(--line); border-radius: 3px; width: 60px; height: 6px; cursor: pointer; }
      #alert { position: absolute; inset: 0; z-index: 2; background: rgba(0,0,0,.35); display: none; align-items: center; justify-content: center; }
      #alert.shown { display: flex; }
      #alert .box { background: var(--surface); border-radius: 14px; width: 270px; text-align: center; overflow: hidden; }
      #alert h3 { margin: 16px 12px 4px; font-size: 16px; } #alert p { margin: 0 12px 14px; }
      #alert.actionSheet .box { width: calc(100% - 16px); margin-bottom: 8px; }
      #alert button { display: block; width: 100%; border: none; border-top: 1px solid var(--line); background: var(--surface); padding: 11px; color: var(--accent); font: inherit; cursor: pointer; }
      /* Two actions of an alert side by side; a cancel action bold (an action sheet's in a box of its own,
         below the rest), a destructive one red. */
      #alert-actions.pair { display: flex; } #alert-actions.pair button + button { border-left: 1px solid var(--line); }
      #alert-cancel { display: none; }
      #alert.actionSheet #alert-cancel.shown { display: block; width: calc(100% - 16px); margin-bottom: 8px; }
      #alert-cancel button { border-top: none; }
      #alert button.cancel { font-weight: 600; } #alert button.destructive { color: var(--bad); }
      #alert.actionSheet { flex-direction: column; justify-content: flex-end; align-items: center; }
      #side { flex: 1; min-width: min(340px, 100%); display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
      section { background: var(--surface); border: 1px solid var(--line); border-radius: 10px; padding: 10px 12px; overflow: auto; max-height: 330px; }
      section h3 { margin: 0 0 6px; font-size: 12px; text-transform: uppercase; color: var(--dim); letter-spacing: .04em; }
      pre { margin: 0; font: 12px/1.35 ui-monospace, monospace; white-space: pre-wrap; }
      #history li.current { font-weight: 600; } #history li.undone { color: var(--dim); text-decoration: line-through; }
      #history li button { font: 11px inherit; margin-left: 6px; }
      ol, ul { margin: 0; padding-left: 20px; font: 12px ui-monospace, monospace; }
      #error { color: var(--bad); white-space: pre-wrap; font: 12px ui-monospace, monospace; }
      #report { color: var(--dim); white-space: pre-wrap; font: 12px ui-monospace, monospace; }
      #messages { grid-column: 1 / -1; }
      #graph svg { max-width: 100%; height: auto; }
      /* A phone's width: one column, the header's controls wrapping under the link. */
      @media (max-width: 720px) {
        header { flex-wrap: wrap; } header input { flex: 1 1 100%; }
        main { padding: 8px; gap: 12px; }
        #side { min-width: 0; grid-template-columns: minmax(0, 1fr); }
        #side section { grid-column: 1 / -1 !important; }
      }
      #graph g.current polygon, #graph g.current path { fill: var(--mark); stroke: #c62828; stroke-width: 2; }
    </style>
    </head>
    <body data-revision="-1" data-token="">
    <header>
      <h1>coordrun serve</h1>
      <input id="link" placeholder="a link the app declares: shop://catalog/shoes/42" aria-label="link">
      <button id="open-link">Open</button>
      <button id="undo" title=":undo">Undo</button>
      <button id="redo" title=":redo">Redo</button>
      <button id="reload" title=":reload">Reload</button>
      <a id="snapshot" href="/snapshot" download="snapshot.json">Snapshot</a>
      <label>Restore <input id="restore" type="file" accept="application/json,.json"></label>
    </header>
    <main>
      <div id="device">
        <div id="behind" aria-hidden="true"></div>
        <div id="sheet">
          <div id="sheet-grip"><button id="sheet-close" title="swipe down: dismiss()" aria-label="dismiss"></button></div>
          <div id="navbar"><button id="back">‹ Back</button><h2 id="screen-title" tabindex="-1"></h2><span style="min-width:60px"></span></div>
          <div id="body">
            <div id="columns"></div>
            <div id="content" tabindex="0" role="region" aria-label="the screen">
              <p id="screen-text"></p>
              <dl id="inputs"></dl>
              <div id="actions"></div>
            </div>
          </div>
          <div id="pager" role="group" aria-label="pages"></div>
          <div id="tabbar"></div>
        </div>
        <div id="alert"><div class="box"><h3 id="alert-title"></h3><p id="alert-message"></p><div id="alert-actions"></div></div><div id="alert-cancel" class="box"></div></div>
      </div>
      <div id="side">
        <section id="messages"><div id="error"></div><div id="report"></div></section>
        <section tabindex="0"><h3>Stack</h3><pre id="stack"></pre><h3 style="margin-top:10px">Hierarchy</h3><pre id="hierarchy"></pre></section>
        <section tabindex="0"><h3>Coordinators</h3><pre id="tree"></pre></section>
        <section tabindex="0"><h3>History</h3><ol id="history"></ol></section>
        <section tabindex="0"><h3>Events</h3><ul id="events" style="list-style:none;padding:0"></ul></section>
        <section tabindex="0"><h3>From outside</h3><div id="outside"></div><p id="held-link"></p></section>
        <section id="windows-section" tabindex="0"><h3>Windows</h3><div id="windows" role="group" aria-label="windows"></div></section>
        <section tabindex="0"><h3>Storage <button id="relaunch" title="relaunch(): the app closes and launches again; only its storage and clock are kept">Relaunch</button></h3><dl id="storage"></dl></section>
        <section style="grid-column: 1 / -1; max-height: none" tabindex="0"><h3>Flow graph <button id="draw-graph" title="explores the app (coordrun explore) and draws it; the node shown now is marked">Draw</button></h3><div id="graph"></div></section>
        <section style="grid-column: 1 / -1" tabindex="0"><h3>Lua</h3><input id="lua" style="width:100%;font:12px ui-monospace,monospace;padding:5px" placeholder="a Lua line, as at the REPL: tap('login', { name = 'Ann', password = 'secret' })"><pre id="output"></pre></section>
      </div>
    </main>
    <script>
    "use strict";
    let shown = -1;
    let latest = null;
    // The server's token: every request carries it (as a header; in the query where a header cannot go).
    // The address keeps it too, so that a reload gets the page again; no cookie holds it (a browser would
    // send a localhost cookie to every port).
    const token = document.body.dataset.token || "";
    const tokenQuery = "?token=" + encodeURIComponent(token);
    const tokenHeaders = { "X-Coordrun-Token": token };
    if (new URLSearchParams(location.search).get("token") !== token) history.replaceState(null, "", location.pathname + tokenQuery + location.hash);
    const $ = (id) => document.getElementById(id);
    function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }

    async function act(action) {
      try {
        const response = await fetch("/action", { method: "POST", headers: { "Content-Type": "application/json", ...tokenHeaders }, body: JSON.stringify(action) });
        const body = await response.json();
        if (!response.ok) { $("error").textContent = body.error; $("messages").style.display = ""; return; }
        render(body);
      } catch (e) { $("error").textContent = "the preview is not reachable: " + e; }
    }

    function render(state) {
      if (state.revision <= shown) return; // each state once: a click's answer and its broadcast are one
      shown = state.revision;
      latest = state;
      const screen = state.screen;
      const alert = screen && screen.alert;
      $("device").classList.toggle("modal", !!(screen && screen.modal && !alert));
      $("device").classList.toggle("fixed", !!(screen && screen.modal && screen.swipeable === false));
      $("device").classList.toggle("fullScreen", !!(screen && screen.presentation === "fullScreen"));
      $("device").classList.toggle("medium", !!(screen && screen.detent === "medium"));
      for (const style of ["formSheet", "popover"]) $("device").classList.toggle(style, !!(screen && screen.presentation === style));
      $("sheet-close").textContent = screen && screen.presentation === "popover" ? "tap outside: dismiss()" : "";
      $("behind").textContent = (screen && !alert && screen.presenter) || "";
      // A split's columns before the detail, each a pane with its title, its text and its actions.
      const columns = (state.columns || []).filter(c => c.column !== "secondary");
      $("device").classList.toggle("split", !!(state.columns || []).length);
      const panes = new Map();
      $("columns").replaceChildren(...columns.map(column => {
        const pane = el("div", undefined, "pane"); pane.dataset.column = column.column;
        pane.setAttribute("role", "region"); pane.setAttribute("aria-label", column.column + " column");
        pane.append(el("h2", column.title || ""), el("p", column.text || "", "pane-text"));
        panes.set(column.column, pane);
        return pane;
      }));
      const look = (screen && !alert && screen.look) || null;
      // Under an alert, the title of the screen it was shown over, dimmed behind it.
      $("screen-title").textContent = screen ? (alert ? screen.presenter || "" : (look && look.title) || screen.title) : "(no screen is showing)";
      $("screen-text").textContent = screen && !alert ? (look && look.text != null ? look.text : screen.text) : "";
      $("back").disabled = !state.canGoBack || !!alert;
      const inputs = $("inputs"); inputs.replaceChildren();
      // The fields the screen's look names (else its inputs), each a label and a value a person reads.
      if (look && look.fields && look.fields.length) { for (const f of look.fields) inputs.append(el("dt", f.label), el("dd", f.value)); }
      else if (screen && !alert) for (const [name, value] of Object.entries(screen.inputs || {})) { inputs.append(el("dt", name), el("dd", value)); }
      // The look's list, as rows; where the screen's outputs choose from it, its items are the actions' rows.
      for (const old of document.querySelectorAll("ul.rows")) old.remove();
      if (look && look.list && !(state.actions || []).some(a => a.kind === "item")) {
        const rows = el("ul", undefined, "rows");
        for (const row of look.list) { const li = el("li", row.title); if (row.subtitle) li.append(el("span", row.subtitle, "subtitle")); rows.append(li); }
        inputs.after(rows);
      }
      $("actions").replaceChildren();
      const alertActions = $("alert-actions"); alertActions.replaceChildren();
      const alertCancel = $("alert-cancel"); alertCancel.replaceChildren();
      const actionSheet = !!(alert && screen.style === "actionSheet");
      for (const action of state.actions || []) {
        if (alert) {
          const b = el("button", action.output, action.role || ""); b.dataset.number = action.number;
          b.onclick = () => act({ action: "choose", number: action.number });
          (actionSheet && action.role === "cancel" ? alertCancel : alertActions).append(b); continue;
        }
        // Beside a split's columns: an action of a column before the detail is in that column's pane.
        const pane = action.column ? panes.get(action.column) : null;
        const actions = pane || $("actions");
        if (action.kind === "value" && action.control && action.control !== "text" && action.control !== "secure") {
          // The control the screen's look gives the output: stars, a stepper, a switch or a button.
          const box = el("div", undefined, "value control-" + action.control); box.dataset.output = action.output;
          const label = el("div", action.output); box.append(label);
          const tap = (payload) => act({ action: "tap", output: action.output, payload: payload });
          if (action.control === "stars") {
            for (let n = 1; n <= 5; n++) { const b = el("button", "★", "star"); b.setAttribute("aria-label", n + (n === 1 ? " star" : " stars")); b.onclick = () => tap(String(n)); box.append(b); }
          } else if (action.control === "stepper") {
            const value = el("output", (action.examples || [])[0] || "0"); value.setAttribute("aria-live", "polite");
            const step = (d) => { value.textContent = String((Number(value.textContent) || 0) + d); };
            const minus = el("button", "−"); minus.setAttribute("aria-label", "one less"); minus.onclick = () => step(-1);
            const plus = el("button", "+"); plus.setAttribute("aria-label", "one more"); plus.onclick = () => step(1);
            const set = el("button", "Set", "send"); set.onclick = () => tap(value.textContent);
            box.append(minus, value, plus, set);
          } else if (action.control === "toggle") {
            const toggle = el("input"); toggle.type = "checkbox"; toggle.setAttribute("role", "switch"); toggle.setAttribute("aria-label", action.output);
            toggle.checked = ((action.examples || [])[0] || "") === "true";
            toggle.onchange = () => tap(toggle.checked ? "true" : "false");
            box.append(toggle);
          } else {
            const b = el("button", action.output, "action"); b.onclick = () => tap((action.examples || [])[0] || "nil"); box.replaceChildren(b);
          }
          actions.append(box); continue;
        }
        if (action.kind === "value") {
          const box = el("div", undefined, "value"); box.dataset.output = action.output;
          box.append(el("div", action.output));
          const field = el("input"); field.value = (action.examples || [])[0] || ""; field.placeholder = "a Lua value: { name = 'Ann' }";
          if (action.secret || action.control === "secure") { field.type = "password"; field.autocomplete = "off"; }
          field.setAttribute("aria-label", action.output);
          const send = el("button", "Tap " + action.output, "send");
          send.onclick = () => act({ action: "tap", output: action.output, payload: field.value });
          const examples = el("div", undefined, "examples");
          (action.examples || []).forEach((example, i) => {
            const b = el("button", action.secret || action.control === "secure" ? "example " + (i + 1) : example); b.onclick = () => { field.value = example; }; examples.append(b);
          });
          box.append(field, examples, send); actions.append(box); continue;
        }
        const b = el("button", action.item != null ? action.item : action.label, "action" + (action.kind === "item" ? " item" : ""));
        if (action.subtitle) b.append(el("span", action.subtitle, "subtitle"));
        b.dataset.number = action.number; b.dataset.output = action.output;
        b.onclick = () => act({ action: "choose", number: action.number });
        actions.append(b);
      }
      $("alert").classList.toggle("shown", !!alert);
      $("alert").classList.toggle("actionSheet", actionSheet);
      alertActions.classList.toggle("pair", !actionSheet && alertActions.children.length === 2);
      alertCancel.classList.toggle("shown", alertCancel.children.length > 0);
      $("alert-title").textContent = alert ? screen.title : "";
      $("alert-message").textContent = alert ? (screen.message || "") : "";
      const tabbar = $("tabbar"); tabbar.replaceChildren();
      (state.tabs || []).forEach((tab, i) => {
        const b = el("button", undefined, tab.selected ? "selected" : ""); b.dataset.title = tab.title;
        const glyph = el("span", Array.from(tab.title)[0] || "", "glyph"); glyph.setAttribute("aria-hidden", "true");
        b.append(glyph, el("span", tab.title, "label"));
        if (tab.selected) b.setAttribute("aria-current", "page");
        if (tab.badge) { const badge = el("span", tab.badge, "badge"); glyph.after(badge); }
        b.onclick = () => act({ action: "tab", number: i + 1 }); tabbar.append(b);
      });
      tabbar.style.display = (state.tabs || []).length ? "flex" : "none";
      // Pages: a dot a page, the shown one filled, and its neighbours a swipe away (‹ swipe("right"),
      // › swipe("left")).
      const pager = $("pager"); pager.replaceChildren();
      const pages = state.pages || [], shownPage = pages.findIndex(p => p.selected);
      if (shownPage > 0) { const b = el("button", "‹", "swipe"); b.title = 'swipe("right")'; b.setAttribute("aria-label", "previous page"); b.onclick = () => swipe(-1); pager.append(b); }
      pages.forEach((page, i) => {
        const b = el("button", undefined, "dot" + (page.selected ? " selected" : "")); b.dataset.title = page.title;
        b.title = page.title; b.setAttribute("aria-label", page.title); if (page.selected) b.setAttribute("aria-current", "page");
        b.onclick = () => act({ action: "page", number: i + 1 }); pager.append(b);
      });
      if (shownPage >= 0 && shownPage < pages.length - 1) { const b = el("button", "›", "swipe"); b.title = 'swipe("left")'; b.setAttribute("aria-label", "next page"); b.onclick = () => swipe(1); pager.append(b); }
      pager.style.display = pages.length ? "flex" : "none";
      $("stack").textContent = (state.stack || []).join(" › ");
      $("hierarchy").textContent = state.hierarchy;
      $("tree").textContent = state.tree;
      const history = $("history"); history.replaceChildren();
      const earlier = (state.historyTotal || 0) - (state.history || []).length;
      if (earlier > 0) history.append(el("li", earlier + " earlier lines (:history lists them all)", "undone"));
      for (const entry of state.history || []) {
        const li = el("li", entry.text, (entry.current ? "current " : "") + (entry.undone ? "undone" : ""));
        li.value = entry.line;
        const go = el("button", "go"); go.title = ":goto " + entry.line; go.onclick = () => act({ action: "goto", line: entry.line });
        li.append(go); history.append(li);
      }
      // The app's windows (an iPad's scenes): one button each, the current one pressed; another opened, the
      // current one closed while another stays.
      const windows = $("windows"); windows.replaceChildren();
      for (const w of state.windows || []) {
        const b = el("button", "window " + w.number + (w.screen ? " · " + w.screen : ""), w.current ? "selected" : "");
        b.title = "window(" + w.number + ")"; b.setAttribute("aria-pressed", w.current ? "true" : "false");
        b.onclick = () => act({ action: "window", number: w.number }); windows.append(b);
      }
      if (state.canOpenWindow) { const b = el("button", "open a window"); b.title = "openWindow()"; b.onclick = () => act({ action: "openWindow" }); windows.append(b); }
      const current = (state.windows || []).find(w => w.current);
      if (current && state.windows.length > 1) {
        const b = el("button", "close window " + current.number); b.title = "closeWindow(" + current.number + ")";
        b.onclick = () => act({ action: "closeWindow", number: current.number }); windows.append(b);
      }
      $("windows-section").style.display = state.canOpenWindow || (state.windows || []).length > 1 ? "" : "none";
      const events = $("events"); events.replaceChildren();
      for (const event of state.events || []) events.append(el("li", event));
      // What the world outside sends: an event with each example payload (or bare), one button each.
      const outside = $("outside"); outside.replaceChildren();
      // A pending request answered with each outcome its kind declares; time passing to the next timer.
      for (const request of state.pendingRequests || []) {
        for (const outcome of request.outcomes) {
          const b = el("button", "answer " + request.kind + (request.nth > 1 ? " #" + request.nth : "") + " " + outcome, "answer-request");
          b.onclick = () => act({ action: "answer", kind: request.kind, nth: request.nth, outcome: outcome });
          outside.append(b);
        }
      }
      if (state.nextTimer !== undefined && state.nextTimer !== null) {
        const b = el("button", "wait " + state.nextTimer + " s (the next timer)", "advance-clock");
        b.onclick = () => act({ action: "advance", seconds: state.nextTimer });
        outside.append(b);
      }
      for (const event of state.outsideEvents || []) {
        const payloads = event.payload ? event.examples : [""];
        for (const payload of payloads) {
          const b = el("button", "event " + event.name + (payload ? " " + payload : ""), "send-event");
          b.dataset.event = event.name;
          b.onclick = () => act({ action: "event", name: event.name, payload: payload });
          outside.append(b);
        }
      }
      // The storage kept across launches, and a link waiting for the sign-in.
      const storage = $("storage"); storage.replaceChildren();
      for (const [key, value] of Object.entries(state.storage || {})) { storage.append(el("dt", key), el("dd", value)); }
      if (!Object.keys(state.storage || {}).length) storage.append(el("dt", "(empty)"), el("dd", "nothing kept across a relaunch yet"));
      $("held-link").textContent = state.heldLink ? "held until its state: " + state.heldLink : "";
      $("error").textContent = state.error || "";
      $("report").textContent = state.reload || "";
      $("messages").style.display = state.error || state.reload ? "" : "none";
      $("output").textContent = state.output || "";
      markGraph();
      document.body.dataset.revision = state.revision;
      // The user's focus follows the screen a step showed (a screen reader reads the new one), unless it is
      // somewhere of its own (the link, the Lua line): after a step the button pressed is gone.
      const focused = document.activeElement;
      if (!focused || focused === document.body || !document.contains(focused) || $("device").contains(focused)) {
        const first = alert ? $("alert-actions").querySelector("button") : null;
        (first || $("screen-title")).focus({ preventScroll: true });
      }
    }

    function markGraph() {
      for (const node of document.querySelectorAll("#graph g.node")) {
        const title = node.querySelector("title");
        node.classList.toggle("current", !!(latest && title && title.textContent === latest.graphNode));
      }
    }

    $("draw-graph").onclick = async () => {
      const response = await fetch("/graph.svg", { headers: tokenHeaders });
      const text = await response.text();
      if (!response.ok) { $("error").textContent = JSON.parse(text).error; $("messages").style.display = ""; return; }
      const svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
      $("graph").replaceChildren(document.importNode(svg, true));
      markGraph();
    };

    // The page a swipe brings: `by` 1 the next, -1 the previous; none past either end.
    function swipe(by) {
      const pages = (latest && latest.pages) || [], shownPage = pages.findIndex(p => p.selected);
      const next = shownPage + by;
      if (shownPage >= 0 && next >= 0 && next < pages.length) act({ action: "page", number: next + 1 });
    }
    // A horizontal drag across the content is a swipe, as on a phone; so are the arrow keys on it.
    let dragFrom = null;
    $("content").addEventListener("pointerdown", (e) => { dragFrom = [e.clientX, e.clientY]; });
    $("content").addEventListener("pointerup", (e) => {
      if (!dragFrom) return;
      const dx = e.clientX - dragFrom[0], dy = e.clientY - dragFrom[1]; dragFrom = null;
      if (Math.abs(dx) > 60 && Math.abs(dx) > 2 * Math.abs(dy)) swipe(dx < 0 ? 1 : -1);
    });
    $("content").addEventListener("keydown", (e) => {
      if (e.target !== $("content")) return;
      if (e.key === "ArrowRight") swipe(1); else if (e.key === "ArrowLeft") swipe(-1);
    });
    // Escape, as a hardware keyboard does on an iPad: an alert's cancel action, else the swipe-down of a
    // sheet the user may swipe away. Not while typing in a field.
    document.addEventListener("keydown", (e) => {
      if (e.key !== "Escape" || !latest || !latest.screen || (e.target && e.target.tagName === "INPUT")) return;
      const screen = latest.screen;
      const cancel = screen.alert ? (latest.actions || []).find(a => a.role === "cancel") : null;
      if (cancel) act({ action: "choose", number: cancel.number });
      else if (!screen.alert && screen.modal && screen.swipeable) act({ action: "dismiss" });
    });
    $("back").onclick = () => act({ action: "back" });
    $("relaunch").onclick = () => act({ action: "relaunch" });
    $("sheet-close").onclick = () => act({ action: "dismiss" });
    $("undo").onclick = () => act({ action: "undo" });
    $("redo").onclick = () => act({ action: "redo" });
    $("reload").onclick = () => act({ action: "reload" });
    $("open-link").onclick = () => act({ action: "open", url: $("link").value });
    $("link").onkeydown = (e) => { if (e.key === "Enter") $("open-link").click(); };
    $("lua").onkeydown = (e) => { if (e.key === "Enter") { act({ action: "lua", code: $("lua").value }); } };
    $("restore").onchange = async (e) => {
      const file = e.target.files[0]; if (!file) return;
      act({ action: "restore", snapshot: await file.text() }); e.target.value = "";
    };

    // After its first message the socket sends what changed: applied to the state this page has, or, when
    // the page has another revision than the patch's base, the whole state asked for again.
    function applyPatch(patch) {
      if (!latest || latest.revision !== patch.base) {
        if (!latest || patch.revision > latest.revision) fetch("/state", { headers: tokenHeaders }).then((r) => r.json()).then(render);
        return;
      }
      const next = Object.assign({}, latest, patch.set);
      for (const key of patch.unset || []) delete next[key];
      if (patch.history) {
        const byLine = new Map((latest.history || []).map((entry) => [entry.line, entry]));
        for (const entry of patch.history.entries) byLine.set(entry.line, entry);
        next.history = patch.history.lines.map((line) => byLine.get(line)).filter(Boolean);
      }
      next.revision = patch.revision;
      render(next);
    }

    function connect() {
      const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/live" + tokenQuery);
      socket.onmessage = (message) => {
        const data = JSON.parse(message.data);
        if (data.patch) applyPatch(data.patch); else render(data);
      };
      socket.onclose = () => setTimeout(connect, 300);
    }
    $("snapshot").href = "/snapshot" + tokenQuery;
    fetch("/state", { headers: tokenHeaders }).then((r) => r.json()).then(render);
    connect();
    </script>
    </body>
    </html>
    """#
}
