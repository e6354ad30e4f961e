/** The platforms a binary is published for, as Node names them (`${process.platform}-${process.arch}`). */
export declare const platforms: readonly string[];
/** This package's version, which is also the binary's. */
export declare const version: string;
/** The package holding the binary for a platform, e.g. "@contractkit/mock-linux-x64". */
export declare function platformPackage(platform?: string, arch?: string): string;
/** The binary's file name on a platform: "contractkit", or "contractkit.exe" on Windows. */
export declare function binaryName(platform?: string): string;
/**
 * The path of this machine's contractkit binary: CONTRACTKIT_BINARY when set,
 * else the one npm installed with the platform package. Throws an Error that
 * says what to do when there is none. Run it as `contractkit mock [flags]`
 * or `contractkit conformance [flags]`.
 */
export declare function binaryPath(): string;
/**
 * The one line that installs this package and a platform's (this machine's
 * by default) from the tarballs `make npm` wrote into dir, before they are
 * published: "npm i -D DIR/contractkit-mock-0.1.0.tgz DIR/contractkit-mock-linux-x64-0.1.0.tgz".
 */
export declare function installLine(dir: string, platform?: string, arch?: string): string;
/** The file `npm pack` writes for a package: tarballName("@contractkit/mock", "0.1.0") is "contractkit-mock-0.1.0.tgz". */
export declare function tarballName(name: string, version: string): string;
