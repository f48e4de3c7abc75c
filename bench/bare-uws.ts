import uWS from 'uWebSockets.js';

/** The yardstick: a bare uWS route answering a small fixed JSON body, nothing else. */
const port = Number(process.argv[2] ?? 0);
const body = JSON.stringify({
  value: '0x0000000000000000000000000000000000000000',
  flagged: false,
  sanctioned: false,
  lists_checked: ['ofac_sdn'],
  matches: [],
});
uWS
  .App()
  .get('/hello', (res) => {
    res.cork(() => res.writeHeader('Content-Type', 'application/json').end(body));
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) process.exit(1);
    console.log(`READY ${uWS.us_socket_local_port(socket as never)}`);
  });
