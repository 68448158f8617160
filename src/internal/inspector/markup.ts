/**
 * The inspector page's body: its landmarks, headings and controls, before the script fills them in.
 * A constant: what varies (the URL to call, the title) goes in the page's head (page.ts), escaped.
 *
 * Names are the ones the tests and screen readers use: a button named "Send", the answer in a
 * region labelled "Response" whose status line (`role="status"`) announces each result, every
 * control with a `<label>`. The note that the page is a development tool is in its banner. A skip
 * link, first, goes past the methods to the Request section.
 *
 * @module
 */

/** The `<body>`'s content, without the script. */
export const BODY = `<a class="skip" href="#request-title">Skip to the request</a>
<header class="top">
<div class="title"><h1 id="service-title">JSON-RPC inspector</h1><p id="service-version" class="muted"></p></div>
<p id="service-description" class="description"></p>
<p class="dev-note"><strong>Development tool.</strong> This page sends what you write to the server that served it, which runs it. Never serve it in production.</p>
</header>
<div class="layout">
<nav aria-labelledby="methods-title">
<h2 id="methods-title">Methods</h2>
<div id="filter-box">
<label for="filter">Filter methods</label>
<input id="filter" type="search" autocomplete="off" spellcheck="false" aria-describedby="filter-count">
<p id="filter-count" class="muted" aria-live="polite"></p>
</div>
<div id="method-list"><p class="muted">Reading the service's description (rpc.discover)…</p></div>
</nav>
<main>
<div class="pair">
<section class="panel" aria-labelledby="request-title">
<h2 id="request-title" tabindex="-1">Request</h2>
<div id="method-info"></div>
<div id="params"></div>
<label for="request">Request (JSON)</label>
<textarea id="request" rows="6" spellcheck="false" aria-describedby="request-hint"></textarea>
<p id="request-hint" class="hint">The form writes it; edit it by hand as you like. Send (or Ctrl+Enter) sends it exactly as it is.</p>
<p id="request-problem" class="problem" hidden></p>
<div class="field check"><input id="notification" type="checkbox" aria-describedby="notification-hint"><label for="notification">Send as a notification</label><span id="notification-hint" class="hint">no id: the server runs it and answers nothing</span></div>
<div class="row">
<button id="send" type="button" class="primary">Send</button>
<button id="stop" type="button" aria-disabled="true">Stop</button>
<button id="add-to-batch" type="button">Add to batch</button>
<button id="copy-curl" type="button">Copy as curl</button>
</div>
<pre id="curl" class="code" hidden></pre>
</section>
<div class="stack">
<section id="response" class="panel" aria-labelledby="response-title">
<h2 id="response-title">Response</h2>
<p id="status" role="status"></p>
<div id="exchange"><p class="muted">Nothing sent yet.</p></div>
</section>
<section class="panel" aria-labelledby="declared-title">
<h2 id="declared-title">Declared</h2>
<div id="declared"></div>
</section>
</div>
</div>
<div class="pair">
<section class="panel" aria-labelledby="batch-title">
<h2 id="batch-title">Batch</h2>
<p id="batch-count" class="muted"></p>
<ol id="batch-list" class="entries"></ol>
<div class="row">
<button id="send-batch" type="button">Send batch</button>
<button id="clear-batch" type="button">Clear batch</button>
</div>
</section>
<section class="panel" aria-labelledby="history-title">
<h2 id="history-title">History</h2>
<p id="history-empty" class="muted">No calls yet.</p>
<ol id="history-list" class="entries"></ol>
</section>
</div>
</main>
</div>`;
