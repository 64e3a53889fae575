// wat2wasm through the `wabt` package, with SIMD enabled. Shared by the
// generator script and the unit test that checks the committed bytes.
import wabtInit from 'wabt';

export async function compileWat(text, name = 'module.wat') {
  const wabt = await wabtInit();
  const mod = wabt.parseWat(name, text, { simd: true });
  try {
    mod.validate();
    return Uint8Array.from(mod.toBinary({}).buffer);
  } finally {
    mod.destroy();
  }
}
