// Express 4 under its devDependency alias (`express4`), with Express 5's types: the adapter's peer
// range promises both, and the tests mount the router in each.
declare module 'express4' {
  import express from 'express'
  export default express
}
