// The overseer page: signs in, follows /api/events, renders with textContent only (agents' text is never HTML).
"use strict";

const Overseer = (() => {
  const state = { session: null, fabric: null, inbox: null, mailbox: null, receivedAt: 0, source: null,
                  selected: null };
  const panels = new Map(); // name -> render(container, data): channels, leases and later panels plug in here

  const $ = (id) => document.getElementById(id);

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function row(cells) {
    const tr = document.createElement("tr");
    for (const cell of cells) {
      const td = document.createElement("td");
      if (cell instanceof Node) td.appendChild(cell); else td.textContent = cell === undefined ? "" : String(cell);
      tr.appendChild(td);
    }
    return tr;
  }

  // Rows keyed by `keyOf` are kept and updated in place, so a click or a selection survives the updates.
  function fillKeyed(tableId, items, keyOf, cellsOf, decorate) {
    const body = $(tableId).tBodies[0];
    const kept = new Map([...body.rows].map((r) => [r.dataset.key, r]));
    const rows = items.map((item) => {
      const key = keyOf(item);
      const cells = cellsOf(item);
      let tr = kept.get(key);
      if (tr) {
        cells.forEach((cell, i) => {
          const td = tr.cells[i];
          if (cell instanceof Node) td.replaceChildren(cell);
          else {
            const text = cell === undefined || cell === null ? "" : String(cell);
            if (td.textContent !== text) td.textContent = text;
          }
        });
      } else {
        tr = row(cells);
        tr.dataset.key = key;
      }
      decorate(tr, item);
      return tr;
    });
    if (rows.length !== body.rows.length || rows.some((r, i) => body.rows[i] !== r)) body.replaceChildren(...rows);
  }

  function fill(tableId, rows) {
    const body = $(tableId).tBodies[0];
    body.replaceChildren(...rows);
  }

  function nowMs() {
    const f = state.fabric;
    return f ? f.now_ms + (Date.now() - state.receivedAt) : Date.now();
  }

  function age(ms) {
    if (!ms) return "";
    let s = Math.max(0, Math.round((nowMs() - ms) / 1000));
    if (s < 60) return s + "s";
    if (s < 3600) return Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0") + "s";
    return Math.floor(s / 3600) + "h" + String(Math.floor((s % 3600) / 60)).padStart(2, "0") + "m";
  }

  function ageCell(ms) {
    const span = el("span", age(ms), "age");
    span.dataset.ms = String(ms || 0);
    return span;
  }

  async function api(method, path, body) {
    const headers = { "Content-Type": "application/json" };
    if (state.session) headers["X-Fabricd-Csrf"] = state.session.csrf;
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
                                         credentials: "same-origin" });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const e = data.error || {};
      throw new Error((e.reason ? e.reason + ": " : "") + (e.message || response.statusText));
    }
    return data;
  }

  function showError(id, error) { $(id).textContent = error ? String(error.message || error) : ""; }

  // -- rendering

  function renderFabric() {
    const f = state.fabric;
    if (!f) return;
    const me = state.session.acting_as;
    const agents = f.agents || [];
    $("agents-count").textContent = String(agents.length);
    fillKeyed("agents", agents, (a) => a.id,
      (a) => [a.id, a.session, a.presence + (a.human ? " (person)" : ""), a.cwd, a.capabilities.join(", "),
              ageCell(a.last_activity_ms), a.unread, a.unread ? ageCell(a.oldest_unread_ms) : ""],
      (tr, a) => {
        tr.className = "presence-" + a.presence.toLowerCase();
        if (!tr.dataset.agent) {
          tr.dataset.agent = a.id;
          tr.addEventListener("click", () => act(() => openMailbox(a.id)));
        }
      });
    const viewed = state.mailbox && agents.find((a) => a.id === state.mailbox.agent_id);
    if (viewed && viewed.unread !== state.mailbox.unread) act(() => openMailbox(viewed.id));
    const queues = f.queues || [];
    const waiting = queues.flatMap((q) => q.tickets.map((t) => ({ q, t })).concat(
      q.more ? [{ q, t: { ticket_id: "more", position: "…", asker: "", task: "", enqueue_ms: 0 } }] : []));
    fillKeyed("queues", waiting, ({ q, t }) => q.target + " " + t.ticket_id,
      ({ q, t }) => [q.target, t.position, t.ticket_id, t.asker, t.task, t.enqueue_ms ? ageCell(t.enqueue_ms) : ""],
      () => {});
    const mine = queues.find((q) => q.target === me);
    renderAsks(mine ? mine.tickets : []);
    $("panel-asks").hidden = !me;
    if (f.outbox) {
      $("panel-outbox").hidden = false;
      const o = f.outbox;
      $("outbox-count").textContent = o.pending.length + (o.more_pending ? "+" : "") + " pending, " +
        o.dead.length + (o.more_dead ? "+" : "") + " dead letters";
      fill("outbox", o.dead.concat(o.pending).map((r) => {
        let retry = "";
        if (r.state === "DEAD_LETTER") {
          retry = el("button", "Retry");
          retry.addEventListener("click", () => act(() => api("POST", "/api/outbox/retry", { keys: [r.key] })));
        }
        return row([r.state, r.key, r.recipient, r.attempts, r.last_error, retry]);
      }));
    }
    if (f.tokens) {
      $("panel-tokens").hidden = false;
      fill("tokens", f.tokens.map((t) => row([t.token_id, t.scope, t.agent_id, t.label, ageCell(t.create_ms),
                                              t.revoked ? "yes" : ""])));
    }
    if (f.status) {
      const s = f.status;
      $("status").textContent = "fabricd " + s.version + " · " + s.mailboxes + " mailboxes · " + s.queued_tickets +
        " queued tickets · " + s.outbox_pending + " outbox rows pending · " + s.open_streams + " streams";
    }
    const sections = f.sections || {};
    for (const [name, render] of panels) {
      let box = $("panel-" + name);
      if (!box) {
        box = el("section");
        box.id = "panel-" + name;
        $("extra-panels").appendChild(box);
      }
      box.hidden = !(name in sections);
      if (name in sections) render(box, sections[name], { el, row, ageCell, api, act });
    }
  }

  // Rows of asks are kept while their tickets wait, so an answer being typed survives every update.
  function renderAsks(tickets) {
    const body = $("asks").tBodies[0];
    const kept = new Map([...body.rows].map((r) => [r.dataset.ticket, r]));
    const same = tickets.length === body.rows.length && tickets.every((t, i) => body.rows[i].dataset.ticket === t.ticket_id);
    const rows = tickets.map((t) => {
      const tr = kept.get(t.ticket_id) || askRow(t);
      tr.cells[0].textContent = String(t.position);
      return tr;
    });
    if (!same) body.replaceChildren(...rows);
  }

  function askRow(t) {
    const form = document.createElement("form");
    form.className = "answer";
    const input = el("input");
    input.name = "result";
    input.placeholder = "your answer";
    input.autocomplete = "off";
    const answer = el("button", "Answer");
    answer.type = "submit";
    const cancel = el("button", "Cancel");
    cancel.type = "button";
    form.append(input, answer, cancel);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      act(() => api("POST", "/api/tickets/" + encodeURIComponent(t.ticket_id) + "/reply", { result: input.value }));
    });
    cancel.addEventListener("click", () =>
      act(() => api("POST", "/api/tickets/" + encodeURIComponent(t.ticket_id) + "/cancel", {})));
    const tr = row([t.position, t.asker, t.task, ageCell(t.enqueue_ms), form]);
    tr.dataset.ticket = t.ticket_id;
    return tr;
  }

  function renderInbox() {
    const box = state.inbox;
    if (!box) return;
    $("panel-inbox").hidden = !box.agent_id;
    $("inbox-owner").textContent = box.agent_id;
    $("inbox-count").textContent = box.unread + " unread";
    fillMessages("inbox", box.messages);
    renderMessage();
  }

  async function openMailbox(agentId) {
    state.mailbox = await api("GET", "/api/mailboxes/" + encodeURIComponent(agentId));
    const box = state.mailbox;
    $("panel-mailbox").hidden = false;
    $("mailbox-owner").textContent = box.agent_id;
    $("mailbox-count").textContent = box.unread + " unread";
    fillMessages("mailbox", box.messages);
  }

  function fillMessages(tableId, messages) {
    fillKeyed(tableId, messages, (m) => m.id, (m) => [m.sender, m.text, m.thread_id, ageCell(m.send_ms)], (tr, m) => {
      if (!tr.dataset.message) {
        tr.dataset.message = m.id;
        tr.addEventListener("click", () => { state.selected = m.id; renderMessage(); });
      }
    });
  }

  function shownMessages() {
    return (state.inbox ? state.inbox.messages : []).concat(state.mailbox ? state.mailbox.messages : []);
  }

  function renderMessage() {
    const m = state.selected && shownMessages().find((x) => x.id === state.selected);
    $("message-view").hidden = !m;
    if (!m) return;
    $("message-id").textContent = m.id;
    $("message-from").textContent = m.sender;
    $("message-to").textContent = m.recipient;
    $("message-thread").textContent = m.thread_id || "(none)";
    $("message-text").textContent = m.text;
    const thread = m.thread_id ? shownMessages().filter((x) => x.thread_id === m.thread_id && x.recipient === m.recipient)
      : [m];
    $("thread").replaceChildren(...thread.map((x) => el("li", x.sender + ": " + x.text)));
  }

  function tickAges() {
    for (const span of document.querySelectorAll("span.age")) {
      const ms = Number(span.dataset.ms);
      if (ms) span.textContent = age(ms);
    }
  }

  // -- live

  function connect() {
    if (state.source) state.source.close();
    const source = state.source = new EventSource("/api/events");
    source.addEventListener("open", () => { $("live").textContent = "live"; $("live").className = "state live"; });
    source.addEventListener("fabric", (ev) => {
      state.fabric = JSON.parse(ev.data);
      state.receivedAt = Date.now();
      renderFabric();
    });
    source.addEventListener("inbox", (ev) => { state.inbox = JSON.parse(ev.data); renderInbox(); });
    source.addEventListener("error", () => {
      $("live").textContent = "reconnecting";
      $("live").className = "state";
      if (source.readyState === EventSource.CLOSED) setTimeout(start, 1000); // refused: signed out, or gone
    });
  }

  async function act(work) {
    showError("action-error", null);
    try { await work(); } catch (error) { showError("action-error", error); }
  }

  function signedIn(session) {
    state.session = session;
    $("signin").hidden = true;
    $("main").hidden = false;
    $("signout").hidden = false;
    $("who").textContent = session.acting_as ? session.identity + " as " + session.acting_as : session.identity;
    $("asks-owner").textContent = session.acting_as;
    $("panel-inbox").hidden = !session.acting_as;
    connect();
  }

  function signedOut() {
    if (state.source) state.source.close();
    state.session = null;
    $("main").hidden = true;
    $("signout").hidden = true;
    $("signin").hidden = false;
    $("who").textContent = "";
    $("live").textContent = "offline";
  }

  async function start() {
    const session = await api("GET", "/api/session").catch(() => null);
    if (session === null) { setTimeout(start, 2000); return; } // the daemon is unreachable: keep trying
    if (session.signed_in) signedIn(session); else signedOut();
  }

  function setup() {
    $("signin-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      showError("signin-error", null);
      try {
        const session = await api("POST", "/api/session", { token: $("token").value, act_as: $("act-as").value });
        $("token").value = "";
        signedIn(session);
      } catch (error) { showError("signin-error", error); }
    });
    $("signout").addEventListener("click", async () => { await act(() => api("POST", "/api/signout", {})); signedOut(); });
    $("send-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      act(async () => {
        await api("POST", "/api/messages", { to: $("send-to").value, text: $("send-text").value,
                                             thread_id: $("send-thread").value });
        $("send-text").value = "";
      });
    });
    $("message-close").addEventListener("click", () => { state.selected = null; renderMessage(); });
    $("mailbox-close").addEventListener("click", () => { state.mailbox = null; $("panel-mailbox").hidden = true; });
    setInterval(tickAges, 1000);
    // An open page keeps its session: the daemon renews the cookie on a request once it is 5 minutes old.
    setInterval(() => { if (state.session) api("GET", "/api/session").catch(() => null); }, 5 * 60 * 1000);
    start();
  }

  // Channels: one block per channel, kept across updates (so a post being typed survives them).
  panels.set("channels", (box, data) => {
    if (!box.dataset.ready) {
      box.dataset.ready = "1";
      box.append(el("h2", "Channels"), el("p", "", "muted"), el("div"));
    }
    const [, note, list] = box.children;
    note.textContent = data.channels.length ? (data.more ? "the first " + data.channels.length + " channels" : "")
      : "no channels yet";
    const kept = new Map([...list.children].map((b) => [b.dataset.channel, b]));
    const blocks = data.channels.map((c) => {
      const block = kept.get(c.name) || channelBlock(c.name);
      const [title, about, members, posts] = block.children;
      title.textContent = "#" + c.name + " · " + c.members + " members · " + c.count + " posts" +
        (c.open ? "" : " · closed");
      about.textContent = c.description;
      members.textContent = c.member_ids.length ? "members: " + c.member_ids.join(", ") : "";
      fillList(posts, c.posts.map((p) => [String(p.seq), p.sender, p.text, ageCell(p.send_ms)]));
      return block;
    });
    if (blocks.length !== list.children.length || blocks.some((b, i) => list.children[i] !== b)) {
      list.replaceChildren(...blocks);
    }
  });

  // Leases: one row per live lease, oldest grant first, its expiry counted down from the snapshot's clock.
  panels.set("leases", (box, data) => {
    if (!box.dataset.ready) {
      box.dataset.ready = "1";
      const table = document.createElement("table");
      table.id = "leases";
      const head = document.createElement("thead");
      head.appendChild(row(["resources", "mode", "holder", "session", "fencing token", "reason", "expires in"]));
      table.append(head, document.createElement("tbody"));
      box.append(el("h2", "Leases"), el("p", "", "muted"), table);
    }
    const [, note, table] = box.children;
    note.textContent = data.leases.length ? (data.more ? "the first " + data.leases.length + " live leases" : "")
      : "no live leases";
    const left = (ms) => Math.max(0, Math.round((ms - nowMs()) / 1000)) + "s";
    fillKeyed("leases", data.leases, (l) => l.lease_id,
              (l) => [l.resources.join(", "), l.mode, l.agent, l.session_name, String(l.fencing_token), l.reason,
                      left(l.expire_ms) + (l.renew_with_presence ? " (renewed by presence)" : "")],
              (tr, l) => { tr.dataset.agent = l.agent; });
  });

  function channelBlock(name) {
    const block = el("div", null, "channel");
    block.dataset.channel = name;
    const form = document.createElement("form");
    const input = el("input");
    input.name = "text";
    input.placeholder = "post to #" + name;
    input.autocomplete = "off";
    const send = el("button", "Post");
    send.type = "submit";
    form.append(input, send);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      act(async () => {
        await api("POST", "/api/channels/" + encodeURIComponent(name) + "/posts", { text: input.value });
        input.value = "";
      });
    });
    const posts = document.createElement("table");
    posts.appendChild(document.createElement("tbody"));
    form.hidden = !(state.session && state.session.acting_as);
    block.append(el("h3"), el("p", "", "muted"), el("p", "", "muted"), posts, form);
    return block;
  }

  function fillList(table, rows) {
    table.tBodies[0].replaceChildren(...rows.map((cells) => row(cells)));
  }

  document.addEventListener("DOMContentLoaded", setup);
  return { panel: (name, render) => panels.set(name, render) };
})();
window.Overseer = Overseer;
