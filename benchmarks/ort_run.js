#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// ONNX Runtime's raw output for one input, whatever element type the model declares: the input is
// raw little-endian float32 NCHW (converted to float16 when the model takes float16), the outputs
// are written as float32 (converted from float16 when the model gives float16). Used by
// benchmarks/ort_agreement.cpp to check FP16 files against ONNX Runtime running them as written.
//   NODE_PATH=PEER_DIR/node_modules node ort_run.js MODEL INPUT.f32 HEIGHT WIDTH OUT_PREFIX
// Prints one JSON line: {"outputs": {NAME: {"dims": [...], "file": "PREFIX.NAME.f32"}}}.
const ort = require('onnxruntime-node');
const fs = require('fs');

// float32 -> IEEE half bits, round to nearest even.
function toHalf(value) {
  const f = new Float32Array([value]);
  const x = new Uint32Array(f.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const exponent = ((x >>> 23) & 0xff) - 127 + 15;
  const mantissa = x & 0x7fffff;
  if (exponent <= 0) return sign;  // the image's values (0..1) never need subnormals
  let half = sign | (exponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) half += 1;
  return half;
}

function fromHalf(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >>> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * Math.pow(2, -24);
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * Math.pow(2, exponent - 15);
}

async function main() {
  const [model, input, height, width, prefix] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
  });
  const buf = fs.readFileSync(input);
  const data = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  const shape = [1, 3, Number(height), Number(width)];
  const meta = session.inputMetadata && session.inputMetadata[0];
  const half = meta && meta.type === 'float16';
  const tensor = half ? new ort.Tensor('float16', Uint16Array.from(data, toHalf), shape)
                      : new ort.Tensor('float32', data, shape);
  const out = await session.run({ [session.inputNames[0]]: tensor });
  const outputs = {};
  for (const name of session.outputNames) {
    const o = out[name];
    const values = o.type === 'float16' ? Float32Array.from(o.data, fromHalf) : Float32Array.from(o.data);
    const file = `${prefix}.${name}.f32`;
    fs.writeFileSync(file, Buffer.from(values.buffer));
    outputs[name] = { dims: o.dims, type: o.type, file };
  }
  console.log(JSON.stringify({ peer: 'onnxruntime-node ' + ort.env.versions.common, input: tensor.type, outputs }));
}

main().catch((e) => { console.error(String(e)); process.exit(1); });
