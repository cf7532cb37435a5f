// Drawing the board on a canvas with the render package's theme (served
// as /theme.json): the same layers and proportions as `sokod render`, then
// the analysis overlays, which only the app draws.

// Overlay colours (the app's own; pictures carry no analysis).
export const OVERLAY = {
  dead: 'rgba(210, 40, 40, 0.85)',
  tunnel: 'rgba(70, 100, 230, 0.30)',
  room: 'rgba(40, 170, 80, 0.28)',
  entrance: 'rgba(40, 140, 60, 0.95)',
  deadlock: '#ff2a1a',
  ghost: 0.45,
};

function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  ctx.roundRect(x, y, w, h, Math.max(r, 0));
  ctx.fill();
}

function disc(ctx, cx, cy, r) {
  ctx.beginPath();
  ctx.arc(cx, cy, r, 0, 2 * Math.PI);
  ctx.fill();
}

// floor draws cell i's fixed layers: a wall, or the floor with its goal.
function floor(ctx, th, board, i, ox, oy) {
  const t = th.tile;
  const c = th.colors;
  if (board.wall[i]) {
    ctx.fillStyle = c.wallEdge;
    ctx.fillRect(ox, oy, t, t);
    ctx.fillStyle = c.wall;
    ctx.fillRect(ox + th.edge * t, oy + th.edge * t, t - 2 * th.edge * t, t - 2 * th.edge * t);
    return;
  }
  if (!board.inside[i]) return;
  ctx.fillStyle = c.floor;
  ctx.fillRect(ox, oy, t, t);
  if (board.goal[i]) {
    ctx.fillStyle = c.goal;
    disc(ctx, ox + t / 2, oy + t / 2, th.goalRadius * t);
  }
}

function box(ctx, th, onGoal, ox, oy) {
  const t = th.tile;
  const c = th.colors;
  const a = th.boxInset * t;
  const e = th.edge * t;
  ctx.fillStyle = onGoal ? c.goalEdge : c.boxEdge;
  roundRect(ctx, ox + a, oy + a, t - 2 * a, t - 2 * a, th.boxRadius * t);
  ctx.fillStyle = onGoal ? c.boxOnGoal : c.box;
  roundRect(ctx, ox + a + e, oy + a + e, t - 2 * (a + e), t - 2 * (a + e), (th.boxRadius - th.edge) * t);
}

function player(ctx, th, ox, oy) {
  const t = th.tile;
  ctx.fillStyle = th.colors.playerEdge;
  disc(ctx, ox + t / 2, oy + t / 2, th.playerRadius * t);
  ctx.fillStyle = th.colors.player;
  disc(ctx, ox + t / 2, oy + t / 2, (th.playerRadius - th.edge) * t);
}

// draw paints game on canvas: the board, the overlays asked for in view
// ({dead, tunnels, rooms: cell lists or null; deadlock: boxes' cells;
// ghost: {boxes, player} cells of the position the search looks at}),
// then the pieces.
export function draw(canvas, th, game, view = {}) {
  const board = game.board;
  const t = th.tile;
  if (canvas.width !== board.width * t || canvas.height !== board.height * t) {
    canvas.width = board.width * t;
    canvas.height = board.height * t;
  }
  const ctx = canvas.getContext('2d');
  ctx.globalAlpha = 1;
  ctx.fillStyle = th.colors.background;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const at = (i) => [(i % board.width) * t, Math.floor(i / board.width) * t];
  for (let i = 0; i < board.width * board.height; i++) floor(ctx, th, board, i, ...at(i));

  for (const room of view.rooms || []) {
    ctx.fillStyle = OVERLAY.room;
    for (const i of room.squares) ctx.fillRect(...at(i), t, t);
    ctx.strokeStyle = OVERLAY.entrance;
    ctx.lineWidth = Math.max(2, t / 12);
    for (const i of room.entrances) {
      const [x, y] = at(i);
      ctx.strokeRect(x + ctx.lineWidth / 2, y + ctx.lineWidth / 2, t - ctx.lineWidth, t - ctx.lineWidth);
    }
  }
  for (const tunnel of view.tunnels || []) {
    ctx.fillStyle = OVERLAY.tunnel;
    for (const i of tunnel) ctx.fillRect(...at(i), t, t);
  }
  if (view.dead) {
    // A cross on each dead square.
    ctx.strokeStyle = OVERLAY.dead;
    ctx.lineWidth = Math.max(2, t / 10);
    ctx.lineCap = 'round';
    for (const i of view.dead) {
      const [x, y] = at(i);
      ctx.beginPath();
      ctx.moveTo(x + t * 0.3, y + t * 0.3);
      ctx.lineTo(x + t * 0.7, y + t * 0.7);
      ctx.moveTo(x + t * 0.7, y + t * 0.3);
      ctx.lineTo(x + t * 0.3, y + t * 0.7);
      ctx.stroke();
    }
  }

  for (const i of game.boxes) box(ctx, th, board.goal[i], ...at(i));
  player(ctx, th, ...at(game.player));

  if (view.ghost) {
    // The search's position, translucent over the game's.
    ctx.globalAlpha = OVERLAY.ghost;
    for (const i of view.ghost.boxes) box(ctx, th, board.goal[i], ...at(i));
    player(ctx, th, ...at(view.ghost.player));
    ctx.globalAlpha = 1;
  }
  if (view.deadlock) {
    ctx.strokeStyle = OVERLAY.deadlock;
    ctx.lineWidth = Math.max(3, t / 8);
    for (const i of view.deadlock) {
      const [x, y] = at(i);
      ctx.strokeRect(x + ctx.lineWidth / 2, y + ctx.lineWidth / 2, t - ctx.lineWidth, t - ctx.lineWidth);
    }
  }
}
