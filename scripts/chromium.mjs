// Launch options for Debian's Chromium through playwright-core (the browser tests and the page
// benchmark): headless, with nothing talking to the network on its own. CHROMIUM overrides the path.
export const CHROMIUM = {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
};
