import ssh2 from "ssh2"

/**
 * A fresh ed25519 key pair that ssh2 can read back (OpenSSH private key and `ssh-ed25519 AAAA…` public line):
 * ssh2 1.17 fails to parse about 0.4% of the pairs its own `generateKeyPairSync` makes (measured: 20 of 5,000), so
 * a test that drew one would fail for no reason of its own.
 */
export const parseableKeyPair = (comment?: string): { readonly private: string; readonly public: string } => {
  for (let attempt = 0; ; attempt++) {
    const pair = ssh2.utils.generateKeyPairSync("ed25519", comment === undefined ? undefined : { comment })
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error) && !(ssh2.utils.parseKey(pair.public) instanceof Error)) {
      return pair
    }
    if (attempt >= 20) throw new Error("ssh2 could not read back 20 key pairs in a row")
  }
}
