// Preloaded (`node --import`) into an HTTP server a test starts with PORT=0: prints the port the kernel picked,
// `MEW_TEST_LISTENING <port>` on stderr, since such servers only say the port they were given.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object') process.stderr.write(`MEW_TEST_LISTENING ${address.port}\n`);
  });
  return listen.apply(this, args);
};
