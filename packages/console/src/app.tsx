export function App() {
  return <main><h1>Credential service console</h1></main>
}
