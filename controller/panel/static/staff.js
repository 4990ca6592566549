// Staff view: every action is a POST with the token; the daemon answers after the event is stored.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const token = () => sessionStorage.getItem("jantaku-staff-token") || "";

  function say(text, isError = false) {
    const node = $("msg");
    node.textContent = text; node.className = isError ? "msg error" : "msg";
  }

  async function call(path, body) {
    const res = await fetch(path, {
      method: body === undefined ? "GET" : "POST",
      headers: { "Authorization": `Bearer ${token()}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = res.headers.get("content-type")?.includes("json") ? await res.json() : await res.blob();
    if (!res.ok) throw new Error(`${res.status}: ${data.error || res.statusText}`);
    return data;
  }

  async function act(action, body) {
    try {
      const out = await call(`/api/staff/${action}`, body);
      say(`${action}: done (event ${out.seq})`);
      refreshStatus();
    } catch (err) { say(`${action}: ${err.message}`, true); }
  }

  async function refreshStatus() {
    try {
      const s = await call("/api/staff/status");
      $("status").textContent = JSON.stringify({ parts: s.parts, faults: s.machine.faults,
        tracker_errors: s.tracker_errors, events: s.events }, null, 1);
      $("machine-detail").textContent = `${s.machine.state}${s.machine.reason ? ": " + s.machine.reason : ""}`;
      const sel = $("ruleset");
      if (!sel.options.length) for (const r of s.rulesets) sel.append(new Option(r, r));
      $("token-msg").textContent = "token accepted";
      $("evidence").replaceChildren(...Object.entries(s.evidence).map(([seq, name]) => {
        const link = JantakuPanel.el("a", { href: "#" }, `event ${seq}: ${name}`);
        link.onclick = async (e) => {
          e.preventDefault();
          try { $("evidence-picture").src = URL.createObjectURL(await call(`/api/staff/evidence/${name}`)); }
          catch (err) { say(`evidence: ${err.message}`, true); }
        };
        return JantakuPanel.el("li", {}, link);
      }));
    } catch (err) { $("token-msg").textContent = err.message; }
  }

  async function refreshCalibration() {
    try {
      const blob = await call("/api/staff/calibration.jpg");
      $("calibration").src = URL.createObjectURL(blob);
    } catch (err) { say(`calibration: ${err.message}`, true); }
  }

  $("token").value = token();
  $("token-save").onclick = () => { sessionStorage.setItem("jantaku-staff-token", $("token").value); refreshStatus(); };
  $("start").onclick = () => act("start_game", {
    ruleset: $("ruleset").value, seating: $("seating").value,
    players: [...document.querySelectorAll(".player")].map((i) => i.value),
  });
  $("confirm").onclick = () => act("confirm", { hand_index: Number($("hand-index").value) });
  $("correct").onclick = () => {
    let data;
    try { data = JSON.parse($("data").value || "{}"); } catch (err) { say(`data is not JSON: ${err.message}`, true); return; }
    act("correct", { what: $("what").value, reason: $("reason").value, data });
  };
  $("void").onclick = () => act("void_hand", { reason: $("reason").value });
  $("reset").onclick = () => act("reset", { reason: $("reset-reason").value });
  $("calib-refresh").onclick = refreshCalibration;

  JantakuPanel.connect((state) => {
    $("summary").textContent = `${state.table} · ${JantakuPanel.roundName(state.round)} · honba ${state.honba}`;
    const m = state.machine || {};
    $("machine").dataset.state = m.state || "idle";
    $("machine").textContent = `machine: ${m.state || "idle"}${m.reason ? " — " + m.reason : ""}`;
    $("hand-index").value = state.hand_index;
    $("pending").textContent = state.pending_result ? `to confirm: ${JSON.stringify(state.pending_result)}`
      : state.result_problem ? `no result yet: ${state.result_problem}` : "";
    $("staff-alerts").replaceChildren(...(state.alerts || []).map((a) =>
      JantakuPanel.el("li", {}, `hand ${a.hand_index + 1}: ${a.rule} seat ${a.seat ?? "–"} tile ${a.tile ?? "–"} ${a.message || ""}`
      + (a.suggest ? ` (offer: ${a.suggest.replace("_", " ")})` : ""))));
  });
  if (token()) refreshStatus();
})();
