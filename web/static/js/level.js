// The level model of the app: a board from the daemon's ParseLevels rows,
// and a game on it (moves, pushes, undo and redo), replaying LURD.

// Steps by LURD letter: the change of x and y.
export const STEPS = { l: [-1, 0], u: [0, -1], r: [1, 0], d: [0, 1] };

// Board is the fixed part of a level: walls, goals, the floor inside the
// walls, and the start position. Cells are y*width+x.
export class Board {
  constructor(summary) {
    this.width = summary.width;
    this.height = summary.height;
    this.title = summary.title || '';
    const n = this.width * this.height;
    this.wall = new Uint8Array(n);
    this.goal = new Uint8Array(n);
    this.inside = new Uint8Array(n);
    this.startBoxes = [];
    this.startPlayer = -1;
    summary.rows.forEach((row, y) => {
      for (let x = 0; x < this.width; x++) {
        const c = row[x] || ' ';
        const i = y * this.width + x;
        if (c === '#') this.wall[i] = 1;
        if (c === '.' || c === '*' || c === '+') this.goal[i] = 1;
        if (c === '$' || c === '*') this.startBoxes.push(i);
        if (c === '@' || c === '+') this.startPlayer = i;
      }
    });
    // Inside the walls: what the player's floor reaches, over boxes and
    // goals (as the render package decides it).
    const stack = [this.startPlayer];
    this.inside[this.startPlayer] = 1;
    while (stack.length) {
      const i = stack.pop();
      const x = i % this.width;
      const y = Math.floor(i / this.width);
      for (const [dx, dy] of Object.values(STEPS)) {
        const nx = x + dx;
        const ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= this.width || ny >= this.height) continue;
        const j = ny * this.width + nx;
        if (!this.wall[j] && !this.inside[j]) {
          this.inside[j] = 1;
          stack.push(j);
        }
      }
    }
  }

  cell(x, y) { return y * this.width + x; }
  xy(i) { return { x: i % this.width, y: Math.floor(i / this.width) }; }
}

// Game is a position on a board with its history. Boxes keep their order,
// so an animation can follow each.
export class Game {
  constructor(board) {
    this.board = board;
    this.reset();
  }

  reset() {
    this.boxes = [...this.board.startBoxes];
    this.player = this.board.startPlayer;
    this.history = []; // LURD letters played
    this.future = []; // letters undone, for redo
  }

  boxAt(i) { return this.boxes.indexOf(i); }

  // step plays a step ('l', 'u', 'r' or 'd', either case) and returns its
  // LURD letter (upper case for a push), or null when it is not legal.
  step(letter, keepFuture = false) {
    const d = STEPS[letter.toLowerCase()];
    if (!d) return null;
    const w = this.board.width;
    const { x, y } = this.board.xy(this.player);
    const nx = x + d[0];
    const ny = y + d[1];
    if (nx < 0 || ny < 0 || nx >= w || ny >= this.board.height) return null;
    const next = ny * w + nx;
    if (this.board.wall[next]) return null;
    const k = this.boxAt(next);
    let played = letter.toLowerCase();
    if (k >= 0) {
      const bx = nx + d[0];
      const by = ny + d[1];
      if (bx < 0 || by < 0 || bx >= w || by >= this.board.height) return null;
      const to = by * w + bx;
      if (this.board.wall[to] || this.boxAt(to) >= 0) return null;
      this.boxes[k] = to;
      played = played.toUpperCase();
    }
    this.player = next;
    this.history.push(played);
    if (!keepFuture) this.future = [];
    return played;
  }

  // undo takes the last step back; false when there is none.
  undo() {
    const played = this.history.pop();
    if (!played) return false;
    const d = STEPS[played.toLowerCase()];
    const w = this.board.width;
    const back = this.player - (d[1] * w + d[0]);
    if (played !== played.toLowerCase()) {
      const k = this.boxAt(this.player + d[1] * w + d[0]);
      this.boxes[k] = this.player;
    }
    this.player = back;
    this.future.push(played);
    return true;
  }

  // redo plays the last undone step again; false when there is none.
  redo() {
    const played = this.future.pop();
    if (!played) return false;
    return this.step(played, true) !== null;
  }

  get moves() { return this.history.length; }
  get pushes() { return this.history.filter((c) => c !== c.toLowerCase()).length; }
  solved() { return this.boxes.every((i) => this.board.goal[i]); }
  lurd() { return this.history.join(''); }

  // position is the game's position as the API's Position message.
  position() {
    return { boxes: this.boxes.map((i) => this.board.xy(i)), player: this.board.xy(this.player) };
  }
}

// replay plays lurd from the start of board and returns the game, or
// throws naming the first step that is not legal.
export function replay(board, lurd) {
  const g = new Game(board);
  [...lurd.replace(/\s+/g, '')].forEach((c, k) => {
    const played = g.step(c);
    if (played === null || played !== c) throw new Error(`step ${k + 1} '${c}' is not legal here`);
  });
  return g;
}
