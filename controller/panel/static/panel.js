// jantaku panel: the table display (and helpers the staff view shares).
// The state arrives over the WebSocket /ws ({"type": "state", "version", "seq", "state"});
// when the daemon goes away the page keeps the last state and reconnects on its own.
// Texts come from /static/i18n/{ja,zh,en}.json: the language is ?lang= (per screen), else the
// table's config (state.language). ?seat=N turns the view towards seat N (its column first).
"use strict";

const JantakuPanel = (() => {
  const params = new URLSearchParams(location.search);
  const live = { state: null, version: 0, seq: 0, connected: false, messages: 0, connects: 0, listeners: [],
    lang: null, dict: null };
  window.__jantaku = live;
  const dicts = {};

  async function loadLang(lang) {
    if (!dicts[lang]) {
      const res = await fetch(`/static/i18n/${lang}.json`);
      dicts[lang] = await res.json();
    }
    live.lang = lang; live.dict = dicts[lang];
    document.documentElement.lang = lang;
  }

  function wantedLang(state) {
    const staff = document.body.classList.contains("staff");     // the staff view is in English
    const asked = params.get("lang") || (staff ? "en" : state && state.language) || "en";
    return ["ja", "zh", "en"].includes(asked) ? asked : "en";
  }

  // t("key", {n: 1}) -> the text in the screen's language, {placeholders} filled
  function t(key, vars = {}) {
    const d = live.dict || { ui: {} };
    let text = d.ui[key];
    if (text === undefined) text = key;
    return String(text).replace(/\{(\w+)\}/g, (_, k) => (vars[k] !== undefined ? vars[k] : ""));
  }
  const place = (n) => ((live.dict && live.dict.ui.places) || [])[n - 1] || String(n);
  const tt = (section, key, fallback) => (live.dict && live.dict[section] && live.dict[section][key]) || fallback || key;

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v; else node.setAttribute(k, v);
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function tileImg(tile) {
    const ok = /^[0-9][mpsz]$|^[1-8]f$/.test(tile);
    return el("img", { src: `/static/tiles/${ok ? tile : "unknown"}.png`, alt: tile, title: tile });
  }

  // one tile picture in its frame: opts.sideways (riichi), opts.called (taken by a call), opts.win
  function tile(name, opts = {}) {
    const cls = ["tile"];
    if (opts.sideways) cls.push("sideways");
    if (opts.called) cls.push("called");
    if (opts.tsumogiri) cls.push("tsumogiri");
    if (opts.win) cls.push("win");
    const node = el("span", { class: cls.join(" "), "data-tile": name }, tileImg(name));
    if (opts.called) node.dataset.called = "true";
    if (opts.sideways) node.dataset.sideways = "true";
    return node;
  }

  function setTiles(node, tiles) {
    node.replaceChildren(...(tiles || []).map((x) => tile(x)));
  }

  function windName(w) { return tt("wind", w, w); }

  function roundName(round) {
    if (!round) return "–";
    return t("round_fmt", { wind: windName(round[0]), n: round.slice(1) });
  }

  function fmt(n) { return Number(n).toLocaleString("en-US"); }
  function signed(n) { return `${n > 0 ? "+" : n < 0 ? "−" : "±"}${fmt(Math.abs(n))}`; }

  function who(state, i) {
    const seat = (state.seats || [])[i];
    return (seat && seat.name) || (state.players || [])[i] || t("seat", { n: i + 1 });
  }

  function connect(onState) {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    let delay = 250;
    const open = () => {
      const ws = new WebSocket(`${proto}://${location.host}/ws`);
      ws.onopen = () => {
        delay = 250; live.connected = true; live.connects += 1; setConn(true);
      };
      ws.onmessage = async (msg) => {
        const data = JSON.parse(msg.data);
        if (data.type !== "state") return;
        const lang = wantedLang(data.state);
        if (live.lang !== lang) await loadLang(lang);
        live.state = data.state; live.version = data.version; live.seq = data.seq; live.messages += 1;
        live.lastMessageAt = performance.now();
        onState(data.state, data);
        live.rendered = live.messages;
        for (const fn of live.listeners) fn(data);
      };
      ws.onclose = () => {
        live.connected = false; setConn(false);
        setTimeout(open, delay); delay = Math.min(delay * 2, 2000);
      };
      ws.onerror = () => ws.close();
    };
    open();
  }

  function setConn(ok) {
    const node = document.getElementById("conn");
    if (!node) return;
    node.dataset.connected = ok ? "true" : "false";
    node.textContent = ok ? t("live") : t("reconnecting");
  }

  function machineWords(m) {
    const words = (live.dict && live.dict.ui.machine_state) || {};
    return words[m.state || "idle"] || m.state || "idle";
  }

  function renderMachine(state) {
    const m = state.machine || {};
    const node = document.getElementById("machine");
    node.dataset.state = m.state || "idle";
    node.textContent = `${t("machine")}: ${machineWords(m)}`;
    node.title = m.reason || "";
    const banner = document.getElementById("machine-alert");
    banner.hidden = m.state !== "halted" && !state.paused;
    // the fault's own words are the firmware's (English): other languages say it plainly
    if (m.state === "halted") {
      banner.textContent = live.lang === "en" ? t("machine_stopped", { reason: m.reason || machineWords(m) })
        : t("machine_stopped_short");
    } else if (state.paused) banner.textContent = t("paused");
  }

  function seatOrder(n) {
    const own = Number(params.get("seat"));
    const start = params.has("seat") && own >= 0 && own < n ? own : 0;
    return Array.from({ length: n }, (_, k) => (start + k) % n);
  }

  function renderSeats(state) {
    const n = (state.seats || []).length;
    const board = document.getElementById("board");
    board.classList.toggle("n3", n === 3);
    const order = seatOrder(n || 4);
    document.querySelectorAll(".seat").forEach((box) => {      // a three-player game leaves one place empty
      const empty = Number(box.dataset.seat) >= n;
      box.hidden = empty;
      box.style.order = empty ? 9 : order.indexOf(Number(box.dataset.seat));
      if (empty) box.replaceChildren();
    });
    const shown = state.pending_result || state.last_result;
    const tenpai = (shown && shown.tenpai) || null;
    const showTenpai = shown && shown.outcome === "exhaustive_draw" && tenpai && state.pending_result;
    (state.seats || []).forEach((seat, i) => {
      const box = document.querySelector(`.seat[data-seat="${i}"]`);
      if (!box) return;
      box.classList.toggle("dealer", state.dealer === i);
      box.classList.toggle("turn", state.turn === i);
      box.classList.toggle("own", params.has("seat") && Number(params.get("seat")) === i);
      const badges = el("div", { class: "badges" });
      if (state.dealer === i) badges.append(el("span", { class: "badge-dealer" }, t("dealer")));
      if (seat.riichi) badges.append(el("span", { class: "badge-riichi" }, t("riichi")));
      if (state.turn === i) badges.append(el("span", { class: "badge-turn" }, `▶ ${t("turn")}`));
      const isTenpai = seat.tenpai !== undefined && seat.tenpai !== null ? seat.tenpai : (showTenpai ? tenpai[i] : null);
      if (isTenpai !== null && isTenpai !== undefined) {
        badges.append(isTenpai ? el("span", { class: "badge-tenpai" }, t("tenpai")) : el("span", { class: "badge-noten" }, t("noten")));
      }
      const discards = seat.discards || (seat.river || []).map((x) => ({ tile: x }));
      const river = el("div", { class: "river tiles" + (discards.length > 24 ? " long" : "") },
        ...discards.map((d) => tile(d.tile, d)));
      const melds = el("div", { class: "melds tiles" }, ...(seat.melds || []).map((m) =>
        el("span", { class: "meld", "data-kind": m.kind }, ...m.tiles.map((x) => tile(x)))),
        ...(seat.flowers && seat.flowers.length ? [el("span", { class: "meld flowers" }, ...seat.flowers.map(tileImg))] : []));
      const gaps = el("div", { class: "gaps" }, ...(seat.gaps || []).map((g, j) => (g === null ? null
        : el("span", { "data-gap": j }, `${windName(state.seats[j].wind)} ${signed(g)}`))));
      box.replaceChildren(
        el("div", { class: "head" }, el("span", { class: "wind" }, windName(seat.wind)),
          el("span", { class: "name" }, who(state, i))),
        el("div", { class: "line" }, el("span", { class: "score", id: `score-${i}` }, fmt(seat.score)),
          seat.place ? el("span", { class: "place", "data-place": seat.place }, place(seat.place)) : null),
        gaps, badges, melds, river,
      );
    });
  }

  function yakuRow(name, han, unit) {
    const [main, sub] = (live.dict && live.dict.yaku && live.dict.yaku[name]) || [name, ""];
    return [el("span", { class: "yaku-name", "data-yaku": name }, main, sub ? el("span", { class: "reading" }, sub) : null),
      el("span", { class: "yaku-han" }, `${han} ${unit}`)];
  }

  function indicatorsRow(view) {
    const row = el("div", { class: "indicators" });
    if ((view.dora_indicators || []).length) row.append(el("span", {}, t("indicators")), ...view.dora_indicators.map((x) => tile(x)));
    if ((view.ura_indicators || []).length) row.append(el("span", {}, t("ura")), ...view.ura_indicators.map((x) => tile(x)));
    return row;
  }

  function winBlock(state, w) {
    const how = w.is_tsumo || w.from === w.seat ? t("tsumo") : t("ron_from", { name: who(state, w.from) });
    const parts = [el("div", { class: "who" }, `${windName(state.seats[w.seat].wind)} ${who(state, w.seat)} — ${how}`)];
    if (w.hand) {
      const rest = [...w.hand];
      const k = w.win_tile ? rest.lastIndexOf(w.win_tile) : -1;
      if (k >= 0) rest.splice(k, 1);
      parts.push(el("div", { class: "winrow tiles hand" }, el("span", { class: "tiles" }, ...rest.map((x) => tile(x)),
        w.win_tile ? tile(w.win_tile, { win: true }) : null),
        ...(w.melds || []).map((m) => el("span", { class: "meld" }, ...m.tiles.map((x) => tile(x))))));
    }
    const total = limitText(w);
    const unit = w.fan !== undefined ? t("fan") : t("han");
    parts.push(el("div", { class: "yaku" }, ...(w.yaku || []).flatMap(([name, han]) => yakuRow(name, han, unit))));
    parts.push(el("div", { class: "total" }, `${total} — ${fmt(w.points)} ${t("points")}`));
    return el("div", { class: "win" }, ...parts);
  }

  function limitText(w) {
    if (w.fan !== undefined) return `${w.fan} ${t("fan")}${w.pattern ? " " + w.pattern : ""}`;
    if (w.yakuman) return w.yakuman > 1 ? t("yakuman_x", { n: w.yakuman }) : tt("limit", "yakuman");
    return `${w.han} ${t("han")} ${w.fu} ${t("fu")}` + (w.limit ? ` ${tt("limit", w.limit)}` : "");
  }

  function winLine(state, w) {
    const how = w.is_tsumo || w.from === w.seat ? t("tsumo") : t("ron_from", { name: who(state, w.from) });
    return el("div", { class: "who" }, `${who(state, w.seat)} — ${how} — ${limitText(w)} — ${fmt(w.points)} ${t("points")}`);
  }

  function payments(state, deltas) {
    const row = el("tr");
    deltas.slice(0, (state.seats || deltas).length).forEach((d, i) => row.append(
      el("td", { class: d > 0 ? "delta-plus" : d < 0 ? "delta-minus" : "" }, `${who(state, i)} ${signed(d)}`)));
    return el("table", { id: "payments" }, row);
  }

  function showResultNow(state) {
    if (state.pending_result || state.result_problem) return true;
    if (!state.last_result) return false;
    if (state.finished) return true;             // the last hand, beside the final ranking
    return ["walls", "dice", "seating"].includes(state.phase) || state.phase === undefined;
  }

  function renderResult(state) {
    const box = document.getElementById("result");
    const view = state.result_view;
    const r = state.pending_result || state.last_result;
    if (state.result_problem && !state.pending_result) {   // the hands as seen give no result (yet)
      box.hidden = false;
      box.dataset.pending = "true";
      box.replaceChildren(el("h2", {}, `${roundName(state.round)} — ${t("no_result")}`),
        el("div", { class: "problem" }, t("held")));
      return;
    }
    if (!r || !showResultNow(state)) { box.hidden = true; return; }
    box.hidden = false;
    box.dataset.pending = state.pending_result ? "true" : "false";
    const compact = Boolean(state.finished && !state.pending_result);
    box.classList.toggle("compact", compact);
    const kind = (view && view.kind) || r.outcome;
    const head = kind === "win" ? t("win") : tt("draw", kind, kind);
    const handNo = `${t("hand")} ${Number(r.hand) + 1}`;
    const parts = [el("h2", {}, `${head} — ${roundName(r.round)} ${r.honba ? r.honba + " " + t("honba") : ""} · ${handNo}`
      + (state.pending_result ? ` (${t("to_confirm")})` : ""))];
    const wins = (view && view.wins) || r.wins || [];
    for (const w of wins) parts.push(compact ? winLine(state, w) : winBlock(state, w));
    if (!compact && view && view.tenpai && view.tenpai.length) {
      for (const tp of view.tenpai) {
        parts.push(el("div", { class: "tenpai-row", "data-seat": tp.seat },
          el("span", { class: "who" }, `${windName(state.seats[tp.seat].wind)} ${who(state, tp.seat)} ${t("tenpai")}`),
          tp.hand ? el("span", { class: "tiles" }, ...tp.hand.map((x) => tile(x))) : null,
          ...(tp.melds || []).map((m) => el("span", { class: "meld tiles" }, ...m.tiles.map((x) => tile(x)))),
          tp.waits && tp.waits.length ? el("span", { class: "waits" }, `${t("waits")}:`,
            el("span", { class: "tiles wait-tiles" }, ...tp.waits.map((x) => tile(x)))) : null));
      }
    }
    if (view && !compact) parts.push(indicatorsRow(view));
    if (state.result_held && state.pending_result) parts.push(el("div", { class: "problem held" }, t("held")));
    if (r.deltas) parts.push(payments(state, r.deltas));
    box.replaceChildren(...parts);
  }

  function renderAlerts(state) {
    const box = document.getElementById("alerts");
    const alerts = (state.alerts || []).filter((a) => a.is_public !== false && !a.dismissed
      && a.hand_index === state.hand_index);
    document.body.classList.toggle("has-alerts", alerts.length > 0);
    if (!alerts.length) { box.hidden = true; return; }
    box.hidden = false;
    const rule = (a) => tt("alert", a.rule, a.rule);
    box.replaceChildren(el("h2", {}, t("alerts")), el("ul", {}, ...alerts.slice(-3).map((a) =>
      el("li", { "data-rule": a.rule }, rule(a),
        a.seat !== null && a.seat !== undefined && state.seats[a.seat] ? ` ${who(state, a.seat)}` : "",
        a.tile ? tile(a.tile) : null, t("held")))));
  }

  // The score sheet: one row per hand ended (state.hands), every seat's score after it.
  function renderSheet(state, box) {
    const rows = state.hands || [];
    const head = el("tr", {}, el("th", {}, t("hand")), el("th", {}, ""), el("th", {}, ""),
      ...(state.seats || []).map((_, i) => el("th", {}, who(state, i))));
    const body = rows.map((r) => el("tr", { "data-hand": r.hand },
      el("td", {}, Number(r.hand) + 1), el("td", {}, `${roundName(r.round)} ${r.honba}`),
      el("td", {}, r.outcome === "win" ? t("win") : tt("draw", r.outcome, r.outcome)),
      ...r.scores.map((s, i) => el("td", { class: "sheet-score", title: signed(r.deltas[i]) }, fmt(s)))));
    box.replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...body)));
  }

  function renderFinished(state) {
    const box = document.getElementById("finished");
    box.hidden = !state.finished;
    box.classList.toggle("with-result", Boolean(state.finished && state.last_result));
    if (!state.finished) return;
    const rows = state.final || [];
    const table = el("table", { id: "final" }, el("tr", {}, el("th", {}, t("place")), el("th", {}, ""),
      el("th", {}, t("final_score")), el("th", {}, t("uma")), el("th", {}, t("result_points"))),
    ...rows.map((r) => el("tr", { class: r.place === 1 ? "first" : "", "data-seat": r.seat },
      el("td", {}, place(r.place)), el("td", {}, who(state, r.seat)),
      el("td", { class: "num" }, fmt(r.score)), el("td", { class: "num" }, (r.uma_oka > 0 ? "+" : "") + r.uma_oka.toFixed(1)),
      el("td", { class: "num" }, (r.points > 0 ? "+" : "") + Number(r.points).toFixed(1)))));
    box.replaceChildren(el("h2", {}, t("game_over")), table);
  }

  function hand(h) {
    if (!h) return "—";
    return h.limit ? tt("limit", h.limit) : `${h.han}${t("han")}${h.fu}${t("fu")}`;
  }

  function renderNeeds(state) {
    const box = document.getElementById("needs");
    const rows = state.needs || [];
    if (!rows.length || state.pending_result) { box.hidden = true; return; }
    box.hidden = false;
    box.replaceChildren(el("b", {}, t("needs")), el("table", {},
      el("tr", {}, el("th", {}, ""), el("th", {}, t("need_direct")), el("th", {}, t("need_ron")), el("th", {}, t("need_tsumo"))),
      ...rows.map((r) => el("tr", { "data-seat": r.seat }, el("td", {}, who(state, r.seat)),
        ...["direct", "ron", "tsumo"].map((k) => el("td", {}, r[k] ? hand(r[k]) : t("need_none")))))));
  }

  function renderDisplay(state) {
    for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
    document.getElementById("table-name").textContent = `${t("table")} ${state.table}`;
    document.getElementById("round").textContent = roundName(state.round);
    document.getElementById("honba").textContent = state.honba;
    document.getElementById("sticks").textContent = state.riichi_sticks;
    document.getElementById("live-wall").textContent = state.live_wall === null || state.live_wall === undefined ? "–" : state.live_wall;
    document.getElementById("hand-index").textContent = Number(state.hand_index) + 1;
    setTiles(document.getElementById("dora-indicators"), state.dora_indicators);
    setTiles(document.getElementById("dora"), state.dora);
    setTiles(document.getElementById("ura"), state.ura_indicators);
    document.querySelector(".ura-label").hidden = !(state.ura_indicators || []).length;
    // no indicator turned yet, or none in these rules (Hong Kong, Chinese): no empty labels
    document.querySelector(".centre .dora").hidden = !(state.dora_indicators || []).length;
    setConn(live.connected);
    renderMachine(state);
    renderSeats(state);
    renderResult(state);
    renderFinished(state);
    renderAlerts(state);
    renderNeeds(state);
    renderSheet(state, document.getElementById("sheet"));
  }

  return {
    startDisplay() { connect(renderDisplay); },
    connect, el, tileImg, tile, roundName, t, loadLang, who, windName, machineWords,
  };
})();
