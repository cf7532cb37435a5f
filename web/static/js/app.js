// The sokod web app: open, play, solve, animate and analyse levels on the
// daemon that serves this page.

import { call, stream, num, seconds, RpcError } from './rpc.js';
import { Board, Game, replay } from './level.js';
import { draw } from './draw.js';

const $ = (id) => document.getElementById(id);

// state is everything the page shows.
const state = {
  theme: null,
  text: '', // the opened level text (a collection)
  levels: [], // LevelSummary messages of text
  number: 0, // the level picked, from 1
  board: null,
  game: null, // the game the user plays
  view: 'play', // 'play', or 'solution' while the solution is shown
  solution: null, // { lurd, game: the replay, frame }
  analysis: null, // the level's Analyze response, as cells
  deadlock: null, // the played position's deadlock, as cells
  ghost: null, // the search's position, as cells
  solve: null, // { ctrl, jobId } while a solve runs
  timer: null, // the animation's interval
  analyzeSeq: 0,
};

// showError puts a message on the page; nothing fails silently or blank.
function showError(err) {
  const el = $('error');
  const msg = err instanceof RpcError ? `${err.message} (${err.code})` : String(err && err.message ? err.message : err);
  el.textContent = msg;
  el.hidden = false;
}

function clearError() {
  $('error').hidden = true;
}

window.addEventListener('error', (e) => showError(e.error || e.message));
window.addEventListener('unhandledrejection', (e) => showError(e.reason));

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

const cellOf = (sq) => state.board.cell(sq.x || 0, sq.y || 0);

// render draws the board as the current view shows it.
function render() {
  const canvas = $('board');
  if (!state.board || !state.theme) return;
  const a = state.analysis;
  const showing = state.view === 'solution' && state.solution ? state.solution.game : state.game;
  const v = {
    dead: $('ov-dead').checked && a ? a.dead : null,
    tunnels: $('ov-tunnels').checked && a ? a.tunnels : null,
    rooms: $('ov-rooms').checked && a ? a.rooms : null,
    deadlock: state.view === 'play' && state.deadlock ? state.deadlock.boxes : null,
    ghost: $('ov-search').checked && state.solve && state.ghost ? state.ghost : null,
  };
  draw(canvas, state.theme, showing, v);
  $('moves').textContent = showing.moves;
  $('pushes').textContent = showing.pushes;
  const solved = showing.solved();
  $('solved-banner').hidden = !solved;
  canvas.dataset.moves = showing.moves;
  canvas.dataset.pushes = showing.pushes;
  canvas.dataset.solved = solved;
  canvas.dataset.view = state.view;
  $('view-label').textContent = state.view === 'solution' ? 'showing the solution' : '';
  if (state.solution) {
    $('anim-frame').textContent = `${state.solution.game.moves} / ${state.solution.lurd.length}`;
    $('anim-frame').dataset.frame = state.solution.game.moves;
    $('anim-frame').dataset.frames = state.solution.lurd.length;
  }
  $('undo').disabled = state.view !== 'play' || state.game.history.length === 0;
  $('redo').disabled = state.view !== 'play' || state.game.future.length === 0;
}

// open reads text with the daemon and lists its levels.
async function open(text) {
  clearError();
  const resp = await call('ParseLevels', { text });
  if (resp.levelError) {
    throw new Error(`cannot read the level: ${resp.levelError.message || resp.levelError.kind}`);
  }
  state.text = text;
  state.levels = resp.levels || [];
  const sel = $('level-select');
  sel.replaceChildren(...state.levels.map((l) => {
    const o = document.createElement('option');
    o.value = l.number;
    o.textContent = `${l.number}${l.title ? ': ' + l.title : ''} (${l.width}×${l.height}, ${plural(l.boxes || 0, 'box', 'boxes')})`;
    return o;
  }));
  sel.disabled = state.levels.length < 2;
  await pick(1);
}

// pick shows level n of the opened text.
async function pick(n) {
  const summary = state.levels[n - 1];
  if (!summary) return;
  stopAnimation();
  state.number = n;
  state.board = new Board(summary);
  state.game = new Game(state.board);
  state.view = 'play';
  state.solution = null;
  state.deadlock = null;
  state.ghost = null;
  state.analysis = null;
  $('level-select').value = String(n);
  $('level-info').textContent = `${summary.title || 'untitled'}: ${summary.width}×${summary.height}, ${plural(summary.boxes || 0, 'box', 'boxes')}` +
    (summary.solved ? ', already solved' : '');
  $('board').style.setProperty('--cols', summary.width);
  if (!state.solve) $('progress').hidden = true;
  $('solution').hidden = true;
  $('verdict').textContent = '';
  $('verdict').className = '';
  $('deadlock').hidden = true;
  $('solve-btn').disabled = !!state.solve;
  render();
  $('board').focus();
  await analyse();
}

// analyse asks the daemon for the level's analysis, for the overlays.
async function analyse() {
  const seq = ++state.analyzeSeq;
  const resp = await call('Analyze', { level: state.text, levelNumber: state.number });
  if (seq !== state.analyzeSeq) return;
  if (resp.levelError) {
    $('analysis').textContent = `no analysis: ${resp.levelError.message}`;
    return;
  }
  state.analysis = {
    dead: (resp.deadSquares || []).map(cellOf),
    tunnels: (resp.tunnels || []).map((t) => (t.squares || []).map(cellOf)),
    rooms: (resp.goalRooms || []).map((r) => ({ squares: (r.squares || []).map(cellOf), entrances: (r.entrances || []).map(cellOf) })),
  };
  const a = state.analysis;
  const lb = resp.lowerBound === undefined ? 0 : resp.lowerBound;
  $('analysis').textContent = `${a.dead.length} dead squares, ${a.tunnels.length} tunnels, ${a.rooms.length} goal rooms; ` +
    (lb < 0 ? 'the boxes cannot all reach goals' : `at least ${lb} pushes`) +
    (resp.impossible ? `; unsolvable: ${resp.impossible}` : '');
  $('analysis').dataset.dead = a.dead.length;
  render();
}

// checkDeadlock asks the daemon whether the played position is a deadlock
// and explains it when it is.
async function checkDeadlock() {
  const seq = ++state.analyzeSeq;
  const game = state.game;
  const resp = await call('Analyze', { level: state.text, levelNumber: state.number, position: game.position() });
  if (seq !== state.analyzeSeq || game !== state.game) return;
  const d = resp.deadlock;
  const el = $('deadlock');
  if (d && d.kind) {
    state.deadlock = { boxes: (d.boxes || []).map(cellOf) };
    el.textContent = `Deadlock: ${d.reason}. Undo (z) to go back.`;
    el.dataset.kind = d.kind;
    el.hidden = false;
  } else {
    state.deadlock = null;
    el.hidden = true;
    delete el.dataset.kind;
  }
  render();
}

// play handles one user step.
function play(letter) {
  if (!state.game) return;
  if (state.view !== 'play') {
    stopAnimation();
    state.view = 'play';
  }
  const played = state.game.step(letter);
  if (played === null) return;
  render();
  if (played !== played.toLowerCase()) checkDeadlock().catch(showError);
}

function undo() {
  if (state.view === 'play' && state.game.undo()) {
    render();
    checkDeadlock().catch(showError);
  }
}

function redo() {
  if (state.view === 'play' && state.game.redo()) {
    render();
    checkDeadlock().catch(showError);
  }
}

// Words for the daemon's give-up reasons.
const GIVE_UP = {
  GIVE_UP_REASON_TIME: 'time budget spent',
  GIVE_UP_REASON_MEMORY: 'memory budget spent',
  GIVE_UP_REASON_NODES: 'node budget spent',
  GIVE_UP_REASON_CANCELLED: 'cancelled',
  GIVE_UP_REASON_PLUGIN_FAILED: 'a component failed',
  GIVE_UP_REASON_UNTRUSTED_PRUNING: 'searched everything, with untrusted pruning',
  GIVE_UP_REASON_OTHER: 'gave up',
};

function showProgress(p) {
  $('progress').hidden = false;
  $('p-state').textContent = 'running';
  const phase = p.phase === 'PHASE_PLAN' ? 'planner' : 'search';
  $('p-component').textContent = `${phase}: ${p.component || ''}`;
  $('p-nodes').textContent = num(p.nodes).toLocaleString('en');
  $('p-generated').textContent = num(p.generated).toLocaleString('en');
  $('p-depth').textContent = p.phase === 'PHASE_PLAN' ? `${p.boxesOnGoals || 0} boxes on goals` : `${p.depth || 0} pushes`;
  $('p-bound').textContent = p.lowerBound === undefined ? '0' : p.lowerBound < 0 ? '–' : String(p.lowerBound);
  $('p-elapsed').textContent = `${seconds(p.elapsed).toFixed(1)} s`;
  $('progress').dataset.nodes = num(p.nodes);
  state.ghost = p.position && p.position.player ? { boxes: (p.position.boxes || []).map(cellOf), player: cellOf(p.position.player) } : null;
  render();
}

function showResult(r) {
  const v = $('verdict');
  const status = r.status || 'STATUS_UNSPECIFIED';
  v.dataset.status = status;
  $('p-state').textContent = 'ended';
  const took = `${seconds(r.elapsed).toFixed(2)} s`;
  // The last figures are the result's: a short solve sends no progress.
  const st = r.stats || {};
  $('p-component').textContent = r.foundBy || r.heuristic || '';
  $('p-nodes').textContent = num(st.nodes).toLocaleString('en');
  $('p-generated').textContent = num(st.generated).toLocaleString('en');
  $('p-depth').textContent = `${st.maxDepth || 0} pushes deep at most`;
  $('p-bound').textContent = String(st.initialLowerBound || 0);
  $('p-elapsed').textContent = took;
  switch (status) {
    case 'STATUS_SOLVED': {
      const m = r.metrics || {};
      v.className = 'solved';
      v.textContent = `Solved${r.foundBy ? ' by ' + r.foundBy : ''} in ${took}: ${m.moves || 0} moves, ${m.pushes || 0} pushes` +
        (r.optimal ? ', push-optimal.' : '.');
      showSolution(r.solution || '', m);
      break;
    }
    case 'STATUS_UNSOLVABLE':
      v.className = 'failed';
      v.textContent = `Unsolvable: ${r.reason || ''}`;
      break;
    case 'STATUS_GAVE_UP':
      v.className = 'gaveup';
      v.textContent = `Gave up after ${took} (${GIVE_UP[r.giveUpReason] || 'gave up'}): ${r.reason || ''}`;
      break;
    case 'STATUS_CANCELLED':
      v.className = 'gaveup';
      v.textContent = `Cancelled: ${r.reason || ''}`;
      break;
    case 'STATUS_INVALID_LEVEL':
      v.className = 'failed';
      v.textContent = `Invalid level: ${(r.levelError && r.levelError.message) || r.reason || ''}`;
      break;
    default:
      v.className = 'failed';
      v.textContent = `Failed: ${r.reason || status}`;
  }
}

function showSolution(lurd, m) {
  let game;
  try {
    game = replay(state.board, lurd);
  } catch (err) {
    showError(`the daemon's solution does not replay here: ${err.message}`);
    return;
  }
  if (!game.solved()) {
    showError("the daemon's solution does not solve the level here");
    return;
  }
  game.reset();
  state.solution = { lurd, game };
  $('lurd').value = lurd;
  $('s-moves').textContent = m.moves || 0;
  $('s-pushes').textContent = m.pushes || 0;
  $('s-lines').textContent = m.boxLines || 0;
  $('s-changes').textContent = m.boxChanges || 0;
  $('solution').hidden = false;
  state.view = 'solution';
  render();
  startAnimation();
}

// solve runs a solve of the level on the daemon, showing its progress.
async function solve() {
  clearError();
  stopAnimation();
  const ctrl = new AbortController();
  const s = { ctrl, jobId: '' };
  state.solve = s;
  state.solution = null;
  state.view = 'play';
  $('solution').hidden = true;
  $('solve-btn').disabled = true;
  $('cancel-btn').disabled = false;
  $('verdict').textContent = '';
  $('verdict').className = '';
  delete $('verdict').dataset.status;
  $('progress').hidden = false;
  $('p-state').textContent = 'starting';
  for (const id of ['p-component', 'p-nodes', 'p-generated', 'p-depth', 'p-bound', 'p-elapsed']) $(id).textContent = '';
  const options = { objective: $('objective').value, timeLimit: `${Math.max(1, Number($('time').value) || 30)}s` };
  if ($('heuristic').value) options.heuristic = $('heuristic').value;
  try {
    for await (const ev of stream('Solve', { level: state.text, levelNumber: state.number, options }, { signal: ctrl.signal })) {
      if (ev.accepted) {
        s.jobId = ev.accepted.jobId || '';
        $('p-state').textContent = ev.accepted.queuePosition ? `queued (${ev.accepted.queuePosition})` : 'accepted';
      } else if (ev.started) {
        $('p-state').textContent = 'running';
      } else if (ev.progress) {
        showProgress(ev.progress);
      } else if (ev.result) {
        showResult(ev.result);
      }
    }
  } catch (err) {
    if (err.name === 'AbortError') {
      $('verdict').textContent = 'Cancelled.';
      $('verdict').dataset.status = 'STATUS_CANCELLED';
    } else {
      showError(err);
    }
  } finally {
    if (state.solve === s) state.solve = null;
    state.ghost = null;
    $('solve-btn').disabled = !state.board;
    $('cancel-btn').disabled = true;
    render();
  }
}

// cancel asks the daemon to cancel the running job; its stream then ends
// with the CANCELLED result. Before the job has an id, the call is closed.
async function cancel() {
  const s = state.solve;
  if (!s) return;
  $('cancel-btn').disabled = true;
  if (!s.jobId) {
    s.ctrl.abort();
    return;
  }
  try {
    await call('Cancel', { jobId: s.jobId });
  } catch (err) {
    if (err.code !== 'not_found') showError(err);
  }
}

function stopAnimation() {
  if (state.timer) clearInterval(state.timer);
  state.timer = null;
  $('anim-play').textContent = 'Play';
}

function startAnimation() {
  const sol = state.solution;
  if (!sol) return;
  stopAnimation();
  state.view = 'solution';
  if (sol.game.moves >= sol.lurd.length) sol.game.reset();
  const rate = Number($('speed').value) || 8;
  state.timer = setInterval(() => {
    if (!stepAnimation(1)) stopAnimation();
  }, 1000 / rate);
  $('anim-play').textContent = 'Pause';
  render();
}

// stepAnimation moves the animation by dir (1 or -1) steps; false at an
// end.
function stepAnimation(dir) {
  const sol = state.solution;
  if (!sol) return false;
  state.view = 'solution';
  let ok;
  if (dir > 0) {
    ok = sol.game.moves < sol.lurd.length && sol.game.step(sol.lurd[sol.game.moves]) !== null;
  } else {
    ok = sol.game.undo();
  }
  render();
  return ok;
}

async function copyLURD() {
  const text = $('lurd').value;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Without clipboard access, select the text for Ctrl+C.
    $('lurd').select();
    document.execCommand('copy');
  }
  $('copy').textContent = 'Copied';
  setTimeout(() => { $('copy').textContent = 'Copy LURD'; }, 1500);
}

async function about() {
  const info = await call('GetServerInfo', {});
  const l = info.limits || {};
  const rows = [
    ['name', info.name], ['version', info.version || '(unset)'], ['Go', info.goVersion], ['platform', `${info.os}/${info.arch}`],
    ['started', info.started ? new Date(info.started).toLocaleString() : ''], ['time limit', l.timeLimit || ''],
    ['memory limit', `${(num(l.memoryLimitBytes) / (1 << 20)).toFixed(0)} MiB`], ['jobs at once', l.maxJobs || 0],
    ['queue', l.queueCapacity || 0], ['largest board', `${l.maxWidth}×${l.maxHeight}`],
    ['default heuristic', info.defaultHeuristic || ''], ['default planners', (info.defaultPlanners || []).join(', ') || 'none'],
  ];
  $('about-info').replaceChildren(...rows.flatMap(([k, v]) => {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = String(v);
    return [dt, dd];
  }));
  $('about-components').replaceChildren(...(info.components || []).map((c) => {
    const li = document.createElement('li');
    li.textContent = `${c.kind || '?'} ${c.name} (${c.source || ''}${c.version ? ' ' + c.version : ''}, ${c.state || ''})`;
    return li;
  }));
  $('about').showModal();
}

function onKey(e) {
  const tag = e.target && e.target.tagName;
  if (tag === 'TEXTAREA' || tag === 'INPUT' || tag === 'SELECT') return;
  const keys = { ArrowLeft: 'l', ArrowUp: 'u', ArrowRight: 'r', ArrowDown: 'd' };
  if (keys[e.key]) {
    e.preventDefault();
    play(keys[e.key]);
  } else if (e.key === 'z' || (e.ctrlKey && e.key === 'Z')) {
    e.preventDefault();
    undo();
  } else if (e.key === 'y') {
    e.preventDefault();
    redo();
  }
}

// guard runs an async handler, showing its error.
const guard = (f) => (...args) => Promise.resolve().then(() => f(...args)).catch(showError);

async function start() {
  $('open-text').addEventListener('click', guard(() => open($('level-text').value)));
  $('file').addEventListener('change', guard(async (e) => {
    const f = e.target.files && e.target.files[0];
    if (!f) return;
    if (f.size > 4 << 20) throw new Error(`${f.name} is ${f.size} bytes; the daemon reads at most 4 MiB`);
    await open(await f.text());
  }));
  $('level-select').addEventListener('change', guard((e) => pick(Number(e.target.value))));
  for (const id of ['ov-dead', 'ov-tunnels', 'ov-rooms', 'ov-search']) $(id).addEventListener('change', render);
  $('undo').addEventListener('click', undo);
  $('redo').addEventListener('click', redo);
  $('restart').addEventListener('click', () => {
    if (!state.game) return;
    stopAnimation();
    state.view = 'play';
    state.game.reset();
    state.deadlock = null;
    $('deadlock').hidden = true;
    render();
  });
  $('solve-btn').addEventListener('click', guard(solve));
  $('cancel-btn').addEventListener('click', guard(cancel));
  $('anim-play').addEventListener('click', () => (state.timer ? stopAnimation() : startAnimation()));
  $('anim-back').addEventListener('click', () => { stopAnimation(); stepAnimation(-1); });
  $('anim-fwd').addEventListener('click', () => { stopAnimation(); stepAnimation(1); });
  $('speed').addEventListener('input', () => {
    $('speed-value').textContent = $('speed').value;
    if (state.timer) startAnimation();
  });
  $('copy').addEventListener('click', guard(copyLURD));
  $('to-play').addEventListener('click', () => { stopAnimation(); state.view = 'play'; render(); });
  $('about-open').addEventListener('click', guard(about));
  $('about-close').addEventListener('click', () => $('about').close());
  document.addEventListener('keydown', onKey);

  const res = await fetch('theme.json');
  if (!res.ok) throw new Error(`theme.json: HTTP ${res.status}`);
  state.theme = await res.json();
  const info = await call('GetServerInfo', {});
  $('server').textContent = `${info.name} ${info.version || ''} · ${(info.limits && info.limits.maxJobs) || 0} jobs at once`;
  const heuristics = (info.components || []).filter((c) => c.kind === 'heuristic');
  $('heuristic').replaceChildren(...[{ name: '', summary: '' }, ...heuristics].map((c) => {
    const o = document.createElement('option');
    o.value = c.name;
    o.textContent = c.name ? c.name : `default (${info.defaultHeuristic || 'matching'})`;
    return o;
  }));
  document.body.dataset.ready = 'true';
}

start().catch(showError);
