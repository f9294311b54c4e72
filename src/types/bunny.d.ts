declare module 'bunny' {
  const bunny: { positions: number[][]; cells: number[][] };
  export default bunny;
}
