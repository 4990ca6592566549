// The board's words in Japanese, Chinese and English. ?lang=ja|zh|en, else the browser's language.
const WORDS = {
  en: {title: "Parlour board", tables: "Tables", table: "Table", online: "online", offline: "offline",
       round: "Round", honba: "honba", dealer: "dealer", riichi: "riichi", machine: "Machine", alerts: "Alerts",
       faults: "Faults", evidence: "evidence", history: "History", events: "Events", games: "Games",
       stats: "Statistics", build_cycle: "Build cycle (s)", faults_per_day: "Faults per day", hands: "Hands played",
       games_played: "Games played", counter: "Counter", visits: "Visits", name: "Name", member: "Member no.",
       chair: "Chair", balance: "Balance", owes: "Owes", check_in: "Check in", move: "Change seat",
       close: "Close visit", token: "Counter token", fees: "Fees", total_fees: "Fees total", no_game: "no game",
       export: "Score sheets (tenhou.net/6)", players: "Players", scores: "Scores", settlement: "Settlement",
       halted: "halted", link: "Broker", connected: "connected", disconnected: "not connected", back: "Board",
       seen: "last heard", finished: "finished", bill: "Bill"},
  ja: {title: "雀荘ボード", tables: "卓", table: "卓", online: "オンライン", offline: "オフライン",
       round: "局", honba: "本場", dealer: "親", riichi: "リーチ", machine: "機械", alerts: "アラート",
       faults: "故障", evidence: "証拠写真", history: "履歴", events: "イベント", games: "半荘",
       stats: "統計", build_cycle: "積み込み時間 (秒)", faults_per_day: "1日の故障", hands: "局数",
       games_played: "半荘数", counter: "カウンター", visits: "来店", name: "名前", member: "会員番号",
       chair: "席", balance: "収支", owes: "お会計", check_in: "受付", move: "席替え",
       close: "精算", token: "カウンタートークン", fees: "ゲーム代", total_fees: "ゲーム代合計", no_game: "対局なし",
       export: "牌譜 (tenhou.net/6)", players: "プレイヤー", scores: "点数", settlement: "精算ポイント",
       halted: "停止中", link: "ブローカー", connected: "接続中", disconnected: "未接続", back: "ボード",
       seen: "最終受信", finished: "終了", bill: "明細"},
  zh: {title: "麻将馆看板", tables: "牌桌", table: "牌桌", online: "在线", offline: "离线",
       round: "局", honba: "本场", dealer: "庄家", riichi: "立直", machine: "机器", alerts: "警报",
       faults: "故障", evidence: "证据照片", history: "历史", events: "事件", games: "对局",
       stats: "统计", build_cycle: "砌牌时间 (秒)", faults_per_day: "每日故障", hands: "局数",
       games_played: "对局数", counter: "前台", visits: "来客", name: "姓名", member: "会员号",
       chair: "座位", balance: "余额", owes: "应付", check_in: "登记", move: "换座",
       close: "结账", token: "前台令牌", fees: "台费", total_fees: "台费合计", no_game: "无对局",
       export: "牌谱 (tenhou.net/6)", players: "玩家", scores: "点数", settlement: "结算",
       halted: "已停止", link: "代理", connected: "已连接", disconnected: "未连接", back: "看板",
       seen: "最后收到", finished: "已结束", bill: "账单"},
};
function pickLang() {
  const q = new URLSearchParams(location.search).get("lang");
  if (q && WORDS[q]) return q;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const k = l.slice(0, 2).toLowerCase();
    if (WORDS[k]) return k;
  }
  return "en";
}
const LANG = pickLang();
function t(key) { return (WORDS[LANG] && WORDS[LANG][key]) || WORDS.en[key] || key; }
function translatePage() {
  document.documentElement.lang = LANG;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  const links = document.querySelector("#langs");
  if (links) links.innerHTML = Object.keys(WORDS).map(
    l => `<a href="?lang=${l}" class="${l === LANG ? "on" : ""}">${{en: "EN", ja: "日本語", zh: "中文"}[l]}</a>`).join(" ");
}
function esc(s) { return String(s ?? "").replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c])); }
function when(t_) { return t_ ? new Date(t_ * 1000).toLocaleTimeString(LANG) : ""; }
async function poll(onData) {
  let version = -1;
  for (;;) {
    try {
      const r = await fetch(`/api/board?version=${version}`);
      const data = await r.json();
      version = data.version;
      onData(data);
    } catch (e) { await new Promise(ok => setTimeout(ok, 1000)); }
  }
}
