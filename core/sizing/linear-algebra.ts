/** Solves A X = B for small dense symmetric positive-definite A (n x n) by Cholesky; B is n x m. */
export function solveSpd(a: readonly number[][], b: readonly number[][]): number[][] {
  const n = a.length;
  const l: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i][j];
      for (let k = 0; k < j; k++) s -= l[i][k] * l[j][k];
      if (i === j) {
        if (!(s > 0)) throw new Error('matrix is not positive definite');
        l[i][i] = Math.sqrt(s);
      } else {
        l[i][j] = s / l[j][j];
      }
    }
  }
  const m = b[0]?.length ?? 0;
  const x: number[][] = b.map((row) => row.slice());
  for (let c = 0; c < m; c++) {
    for (let i = 0; i < n; i++) {
      let s = x[i][c];
      for (let k = 0; k < i; k++) s -= l[i][k] * x[k][c];
      x[i][c] = s / l[i][i];
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = x[i][c];
      for (let k = i + 1; k < n; k++) s -= l[k][i] * x[k][c];
      x[i][c] = s / l[i][i];
    }
  }
  return x;
}

/** log det of a symmetric positive-definite matrix (Cholesky). */
export function logDetSpd(a: readonly number[][]): number {
  const n = a.length;
  const l: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  let logDet = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i][j];
      for (let k = 0; k < j; k++) s -= l[i][k] * l[j][k];
      if (i === j) {
        l[i][i] = Math.sqrt(s);
        logDet += 2 * Math.log(l[i][i]);
      } else {
        l[i][j] = s / l[j][j];
      }
    }
  }
  return logDet;
}
