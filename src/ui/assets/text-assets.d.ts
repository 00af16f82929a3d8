/** Style sheets imported as text (`with { type: "text" }`): the web view serves them from the binary. */
declare module "*.css" {
  const text: string;
  export default text;
}
