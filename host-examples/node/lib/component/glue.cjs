// GENERATED - DO NOT EDIT. jco 1.10.2 `transpile --instantiation sync --no-wasi-shim`
// of lib/retry_policy.wasm, made CommonJS; regenerate with
// host-examples/node/scripts/generate-glue (tests/glue.test.mjs fails when stale).
'use strict';
function instantiate(getCoreModule, imports, instantiateCore = (module, importObject) => new WebAssembly.Instance(module, importObject)) {
  
  function clampGuest(i, min, max) {
    if (i < min || i > max) throw new TypeError(`must be between ${min} and ${max}`);
    return i;
  }
  
  class ComponentError extends Error {
    constructor (value) {
      const enumerable = typeof value !== 'string';
      super(enumerable ? `${String(value)} (see error.payload)` : value);
      Object.defineProperty(this, 'payload', { value, enumerable });
    }
  }
  
  let dv = new DataView(new ArrayBuffer());
  const dataView = mem => dv.buffer === mem.buffer ? dv : dv = new DataView(mem.buffer);
  
  function getErrorPayload(e) {
    if (e && hasOwnProperty.call(e, 'payload')) return e.payload;
    if (e instanceof Error) throw e;
    return e;
  }
  
  const hasOwnProperty = Object.prototype.hasOwnProperty;
  
  function throwInvalidBool() {
    throw new TypeError('invalid variant discriminant for bool');
  }
  
  const toUint64 = val => BigInt.asUintN(64, BigInt(val));
  
  function toUint16(val) {
    val >>>= 0;
    val %= 2 ** 16;
    return val;
  }
  
  function toUint32(val) {
    return val >>> 0;
  }
  
  const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  
  const utf8Encoder = new TextEncoder();
  
  let utf8EncodedLen = 0;
  function utf8Encode(s, realloc, memory) {
    if (typeof s !== 'string') throw new TypeError('expected a string');
    if (s.length === 0) {
      utf8EncodedLen = 0;
      return 1;
    }
    let buf = utf8Encoder.encode(s);
    let ptr = realloc(0, 0, 1, buf.length);
    new Uint8Array(memory.buffer).set(buf, ptr);
    utf8EncodedLen = buf.length;
    return ptr;
  }
  
  
  const module0 = getCoreModule('retry_policy.core.wasm');
  const module1 = getCoreModule('retry_policy.core2.wasm');
  const module2 = getCoreModule('retry_policy.core3.wasm');
  
  const { call } = imports['webhook:retry-policy/budget-store'];
  const { nowMs } = imports['webhook:retry-policy/clock'];
  let gen = (function* init () {
    let exports0;
    
    function trampoline0() {
      const ret = nowMs();
      return toUint64(ret);
    }
    
    let exports1;
    let memory0;
    let realloc0;
    
    function trampoline1(arg0, arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9, arg10) {
      let enum0;
      switch (arg0) {
        case 0: {
          enum0 = 'record';
          break;
        }
        case 1: {
          enum0 = 'reserve';
          break;
        }
        case 2: {
          enum0 = 'record-reserve';
          break;
        }
        default: {
          throw new TypeError('invalid discriminant specified for StoreOp');
        }
      }
      var ptr1 = arg1;
      var len1 = arg2;
      var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
      var bool2 = arg8;
      let ret;
      try {
        ret = { tag: 'ok', val: call({
          op: enum0,
          endpointId: result1,
          windowMs: BigInt.asUintN(64, arg3),
          bucket: BigInt.asUintN(64, arg4),
        }, {
          ratio: arg5,
          windowMs: BigInt.asUintN(64, arg6),
          minSample: BigInt.asUintN(64, arg7),
          sliding: bool2 == 0 ? false : (bool2 == 1 ? true : throwInvalidBool()),
        }, BigInt.asUintN(64, arg9))};
      } catch (e) {
        ret = { tag: 'err', val: getErrorPayload(e) };
      }
      var variant8 = ret;
      switch (variant8.tag) {
        case 'ok': {
          const e = variant8.val;
          dataView(memory0).setInt8(arg10 + 0, 0, true);
          var {reserved: v3_0, counts: v3_1 } = e;
          dataView(memory0).setInt8(arg10 + 8, v3_0 ? 1 : 0, true);
          var {current: v4_0, previous: v4_1 } = v3_1;
          var {total: v5_0, retries: v5_1 } = v4_0;
          dataView(memory0).setBigInt64(arg10 + 16, toUint64(v5_0), true);
          dataView(memory0).setBigInt64(arg10 + 24, toUint64(v5_1), true);
          var {total: v6_0, retries: v6_1 } = v4_1;
          dataView(memory0).setBigInt64(arg10 + 32, toUint64(v6_0), true);
          dataView(memory0).setBigInt64(arg10 + 40, toUint64(v6_1), true);
          break;
        }
        case 'err': {
          const e = variant8.val;
          dataView(memory0).setInt8(arg10 + 0, 1, true);
          var ptr7 = utf8Encode(e, realloc0, memory0);
          var len7 = utf8EncodedLen;
          dataView(memory0).setInt32(arg10 + 12, len7, true);
          dataView(memory0).setInt32(arg10 + 8, ptr7, true);
          break;
        }
        default: {
          throw new TypeError('invalid variant specified for result');
        }
      }
    }
    
    let exports2;
    let postReturn0;
    let postReturn1;
    let postReturn2;
    let postReturn3;
    let postReturn4;
    let postReturn5;
    let postReturn6;
    let postReturn7;
    let postReturn8;
    let postReturn9;
    let postReturn10;
    let postReturn11;
    let postReturn12;
    let postReturn13;
    let postReturn14;
    let postReturn15;
    let postReturn16;
    let postReturn17;
    ({ exports: exports0 } = instantiateCore(module1));
    ({ exports: exports1 } = instantiateCore(module0, {
      'webhook:retry-policy/budget-store@0.3.0': {
        call: exports0['0'],
      },
      'webhook:retry-policy/clock@0.3.0': {
        'now-ms': trampoline0,
      },
    }));
    memory0 = exports1.memory;
    realloc0 = exports1.cabi_realloc;
    ({ exports: exports2 } = instantiateCore(module2, {
      '': {
        $imports: exports0.$imports,
        '0': trampoline1,
      },
    }));
    postReturn0 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#plan'];
    postReturn1 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#apply-call'];
    postReturn2 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#budget-allows'];
    postReturn3 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#load-document'];
    postReturn4 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#admit'];
    postReturn5 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#evaluate'];
    postReturn6 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#decide'];
    postReturn7 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#store-key'];
    postReturn8 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#advance'];
    postReturn9 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#finish'];
    postReturn10 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#after-probe'];
    postReturn11 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#settle-wake'];
    postReturn12 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#call-for'];
    postReturn13 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#load-health-document'];
    postReturn14 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#engine-open'];
    postReturn15 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#engine-feed'];
    postReturn16 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#read-target'];
    postReturn17 = exports1['cabi_post_webhook:retry-policy/policy@0.3.0#destination-refusal'];
    let policy030AbiVersion;
    
    function abiVersion() {
      const ret = policy030AbiVersion();
      return ret >>> 0;
    }
    let policy030Plan;
    
    function plan(arg0, arg1, arg2) {
      var {baseMs: v0_0, factor: v0_1, capMs: v0_2, jitter: v0_3 } = arg0;
      var val1 = v0_3;
      let enum1;
      switch (val1) {
        case 'none': {
          enum1 = 0;
          break;
        }
        case 'full': {
          enum1 = 1;
          break;
        }
        case 'equal': {
          enum1 = 2;
          break;
        }
        default: {
          if ((v0_3) instanceof Error) {
            console.error(v0_3);
          }
          
          throw new TypeError(`"${val1}" is not one of the cases of jitter`);
        }
      }
      const ret = policy030Plan(toUint64(v0_0), +v0_1, toUint64(v0_2), enum1, toUint64(arg1), toUint32(arg2));
      let variant7;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr2 = dataView(memory0).getInt32(ret + 24, true);
          var len2 = dataView(memory0).getInt32(ret + 28, true);
          var result2 = new BigUint64Array(memory0.buffer.slice(ptr2, ptr2 + len2 * 8));
          let enum3;
          switch (dataView(memory0).getUint8(ret + 40, true)) {
            case 0: {
              enum3 = 'window';
              break;
            }
            case 1: {
              enum3 = 'hard-cap';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for LimitedBy');
            }
          }
          variant7= {
            tag: 'ok',
            val: {
              maxAttempts: dataView(memory0).getInt32(ret + 8, true) >>> 0,
              expectedSpanMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
              offsetsMs: result2,
              worstCaseSpanMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 32, true)),
              limitedBy: enum3,
            }
          };
          break;
        }
        case 1: {
          let enum4;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum4 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum4 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum4 = 'invalid-window';
              break;
            }
            case 3: {
              enum4 = 'invalid-budget';
              break;
            }
            case 4: {
              enum4 = 'invalid-state';
              break;
            }
            case 5: {
              enum4 = 'invalid-status';
              break;
            }
            case 6: {
              enum4 = 'invalid-input';
              break;
            }
            case 7: {
              enum4 = 'invalid-document';
              break;
            }
            case 8: {
              enum4 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum4 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum4 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr5 = dataView(memory0).getInt32(ret + 12, true);
          var len5 = dataView(memory0).getInt32(ret + 16, true);
          var result5 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr5, len5));
          var ptr6 = dataView(memory0).getInt32(ret + 20, true);
          var len6 = dataView(memory0).getInt32(ret + 24, true);
          var result6 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr6, len6));
          variant7= {
            tag: 'err',
            val: {
              code: enum4,
              field: result5,
              message: result6,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant7;
      postReturn0(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Delay;
    
    function delay(arg0, arg1, arg2) {
      var {baseMs: v0_0, factor: v0_1, capMs: v0_2, jitter: v0_3 } = arg0;
      var val1 = v0_3;
      let enum1;
      switch (val1) {
        case 'none': {
          enum1 = 0;
          break;
        }
        case 'full': {
          enum1 = 1;
          break;
        }
        case 'equal': {
          enum1 = 2;
          break;
        }
        default: {
          if ((v0_3) instanceof Error) {
            console.error(v0_3);
          }
          
          throw new TypeError(`"${val1}" is not one of the cases of jitter`);
        }
      }
      var ptr2 = utf8Encode(arg1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      const ret = policy030Delay(toUint64(v0_0), +v0_1, toUint64(v0_2), enum1, ptr2, len2, toUint32(arg2));
      let variant6;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant6= {
            tag: 'ok',
            val: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 8, true))
          };
          break;
        }
        case 1: {
          let enum3;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum3 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum3 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum3 = 'invalid-window';
              break;
            }
            case 3: {
              enum3 = 'invalid-budget';
              break;
            }
            case 4: {
              enum3 = 'invalid-state';
              break;
            }
            case 5: {
              enum3 = 'invalid-status';
              break;
            }
            case 6: {
              enum3 = 'invalid-input';
              break;
            }
            case 7: {
              enum3 = 'invalid-document';
              break;
            }
            case 8: {
              enum3 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum3 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum3 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr4 = dataView(memory0).getInt32(ret + 12, true);
          var len4 = dataView(memory0).getInt32(ret + 16, true);
          var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
          var ptr5 = dataView(memory0).getInt32(ret + 20, true);
          var len5 = dataView(memory0).getInt32(ret + 24, true);
          var result5 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr5, len5));
          variant6= {
            tag: 'err',
            val: {
              code: enum3,
              field: result4,
              message: result5,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant6;
      postReturn1(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030ClassifyStatus;
    
    function classifyStatus(arg0) {
      const ret = policy030ClassifyStatus(toUint16(arg0));
      let variant4;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let enum0;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              enum0 = 'success';
              break;
            }
            case 1: {
              enum0 = 'retryable';
              break;
            }
            case 2: {
              enum0 = 'terminal';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for OutcomeClass');
            }
          }
          variant4= {
            tag: 'ok',
            val: enum0
          };
          break;
        }
        case 1: {
          let enum1;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              enum1 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum1 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum1 = 'invalid-window';
              break;
            }
            case 3: {
              enum1 = 'invalid-budget';
              break;
            }
            case 4: {
              enum1 = 'invalid-state';
              break;
            }
            case 5: {
              enum1 = 'invalid-status';
              break;
            }
            case 6: {
              enum1 = 'invalid-input';
              break;
            }
            case 7: {
              enum1 = 'invalid-document';
              break;
            }
            case 8: {
              enum1 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum1 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum1 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr2 = dataView(memory0).getInt32(ret + 8, true);
          var len2 = dataView(memory0).getInt32(ret + 12, true);
          var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
          var ptr3 = dataView(memory0).getInt32(ret + 16, true);
          var len3 = dataView(memory0).getInt32(ret + 20, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant4= {
            tag: 'err',
            val: {
              code: enum1,
              field: result2,
              message: result3,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant4;
      postReturn2(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030ClassifyError;
    
    function classifyError(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy030ClassifyError(ptr0, len0);
      let enum1;
      switch (ret) {
        case 0: {
          enum1 = 'success';
          break;
        }
        case 1: {
          enum1 = 'retryable';
          break;
        }
        case 2: {
          enum1 = 'terminal';
          break;
        }
        default: {
          throw new TypeError('invalid discriminant specified for OutcomeClass');
        }
      }
      return enum1;
    }
    let policy030BudgetAllows;
    
    function budgetAllows(arg0, arg1, arg2) {
      var {ratio: v0_0, windowMs: v0_1, minSample: v0_2, sliding: v0_3 } = arg0;
      var {current: v1_0, previous: v1_1 } = arg2;
      var {total: v2_0, retries: v2_1 } = v1_0;
      var {total: v3_0, retries: v3_1 } = v1_1;
      const ret = policy030BudgetAllows(+v0_0, toUint64(v0_1), toUint64(v0_2), v0_3 ? 1 : 0, toUint64(arg1), toUint64(v2_0), toUint64(v2_1), toUint64(v3_0), toUint64(v3_1));
      let variant8;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var bool4 = dataView(memory0).getUint8(ret + 4, true);
          variant8= {
            tag: 'ok',
            val: bool4 == 0 ? false : (bool4 == 1 ? true : throwInvalidBool())
          };
          break;
        }
        case 1: {
          let enum5;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              enum5 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum5 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum5 = 'invalid-window';
              break;
            }
            case 3: {
              enum5 = 'invalid-budget';
              break;
            }
            case 4: {
              enum5 = 'invalid-state';
              break;
            }
            case 5: {
              enum5 = 'invalid-status';
              break;
            }
            case 6: {
              enum5 = 'invalid-input';
              break;
            }
            case 7: {
              enum5 = 'invalid-document';
              break;
            }
            case 8: {
              enum5 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum5 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum5 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr6 = dataView(memory0).getInt32(ret + 8, true);
          var len6 = dataView(memory0).getInt32(ret + 12, true);
          var result6 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr6, len6));
          var ptr7 = dataView(memory0).getInt32(ret + 16, true);
          var len7 = dataView(memory0).getInt32(ret + 20, true);
          var result7 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr7, len7));
          variant8= {
            tag: 'err',
            val: {
              code: enum5,
              field: result6,
              message: result7,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant8;
      postReturn2(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030LoadDocument;
    
    function loadDocument(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy030LoadDocument(ptr0, len0);
      let variant9;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 4, true);
          var len1 = dataView(memory0).getInt32(ret + 8, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          var len5 = dataView(memory0).getInt32(ret + 16, true);
          var base5 = dataView(memory0).getInt32(ret + 12, true);
          var result5 = [];
          for (let i = 0; i < len5; i++) {
            const base = base5 + i * 88;
            var ptr2 = dataView(memory0).getInt32(base + 0, true);
            var len2 = dataView(memory0).getInt32(base + 4, true);
            var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
            let enum3;
            switch (dataView(memory0).getUint8(base + 32, true)) {
              case 0: {
                enum3 = 'none';
                break;
              }
              case 1: {
                enum3 = 'full';
                break;
              }
              case 2: {
                enum3 = 'equal';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for Jitter');
              }
            }
            var bool4 = dataView(memory0).getUint8(base + 80, true);
            result5.push({
              name: result2,
              policy: {
                backoff: {
                  baseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 8, true)),
                  factor: dataView(memory0).getFloat64(base + 16, true),
                  capMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 24, true)),
                  jitter: enum3,
                },
                windowMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 40, true)),
                hardCap: dataView(memory0).getInt32(base + 48, true) >>> 0,
                budget: {
                  ratio: dataView(memory0).getFloat64(base + 56, true),
                  windowMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 64, true)),
                  minSample: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 72, true)),
                  sliding: bool4 == 0 ? false : (bool4 == 1 ? true : throwInvalidBool()),
                },
              },
            });
          }
          variant9= {
            tag: 'ok',
            val: {
              version: result1,
              classes: result5,
            }
          };
          break;
        }
        case 1: {
          let enum6;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              enum6 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum6 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum6 = 'invalid-window';
              break;
            }
            case 3: {
              enum6 = 'invalid-budget';
              break;
            }
            case 4: {
              enum6 = 'invalid-state';
              break;
            }
            case 5: {
              enum6 = 'invalid-status';
              break;
            }
            case 6: {
              enum6 = 'invalid-input';
              break;
            }
            case 7: {
              enum6 = 'invalid-document';
              break;
            }
            case 8: {
              enum6 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum6 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum6 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr7 = dataView(memory0).getInt32(ret + 8, true);
          var len7 = dataView(memory0).getInt32(ret + 12, true);
          var result7 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr7, len7));
          var ptr8 = dataView(memory0).getInt32(ret + 16, true);
          var len8 = dataView(memory0).getInt32(ret + 20, true);
          var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
          variant9= {
            tag: 'err',
            val: {
              code: enum6,
              field: result7,
              message: result8,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant9;
      postReturn3(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Admit;
    
    function admit(arg0, arg1, arg2) {
      var {version: v0_0, classes: v0_1 } = arg0;
      var ptr1 = utf8Encode(v0_0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      var vec8 = v0_1;
      var len8 = vec8.length;
      var result8 = realloc0(0, 0, 8, len8 * 88);
      for (let i = 0; i < vec8.length; i++) {
        const e = vec8[i];
        const base = result8 + i * 88;var {name: v2_0, policy: v2_1 } = e;
        var ptr3 = utf8Encode(v2_0, realloc0, memory0);
        var len3 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len3, true);
        dataView(memory0).setInt32(base + 0, ptr3, true);
        var {backoff: v4_0, windowMs: v4_1, hardCap: v4_2, budget: v4_3 } = v2_1;
        var {baseMs: v5_0, factor: v5_1, capMs: v5_2, jitter: v5_3 } = v4_0;
        dataView(memory0).setBigInt64(base + 8, toUint64(v5_0), true);
        dataView(memory0).setFloat64(base + 16, +v5_1, true);
        dataView(memory0).setBigInt64(base + 24, toUint64(v5_2), true);
        var val6 = v5_3;
        let enum6;
        switch (val6) {
          case 'none': {
            enum6 = 0;
            break;
          }
          case 'full': {
            enum6 = 1;
            break;
          }
          case 'equal': {
            enum6 = 2;
            break;
          }
          default: {
            if ((v5_3) instanceof Error) {
              console.error(v5_3);
            }
            
            throw new TypeError(`"${val6}" is not one of the cases of jitter`);
          }
        }
        dataView(memory0).setInt8(base + 32, enum6, true);
        dataView(memory0).setBigInt64(base + 40, toUint64(v4_1), true);
        dataView(memory0).setInt32(base + 48, toUint32(v4_2), true);
        var {ratio: v7_0, windowMs: v7_1, minSample: v7_2, sliding: v7_3 } = v4_3;
        dataView(memory0).setFloat64(base + 56, +v7_0, true);
        dataView(memory0).setBigInt64(base + 64, toUint64(v7_1), true);
        dataView(memory0).setBigInt64(base + 72, toUint64(v7_2), true);
        dataView(memory0).setInt8(base + 80, v7_3 ? 1 : 0, true);
      }
      var ptr9 = utf8Encode(arg1, realloc0, memory0);
      var len9 = utf8EncodedLen;
      const ret = policy030Admit(ptr1, len1, result8, len8, ptr9, len9, toUint64(arg2));
      let variant18;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr10 = dataView(memory0).getInt32(ret + 8, true);
          var len10 = dataView(memory0).getInt32(ret + 12, true);
          var result10 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr10, len10));
          var ptr11 = dataView(memory0).getInt32(ret + 16, true);
          var len11 = dataView(memory0).getInt32(ret + 20, true);
          var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
          var ptr12 = dataView(memory0).getInt32(ret + 24, true);
          var len12 = dataView(memory0).getInt32(ret + 28, true);
          var result12 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr12, len12));
          var ptr13 = dataView(memory0).getInt32(ret + 64, true);
          var len13 = dataView(memory0).getInt32(ret + 68, true);
          var result13 = new BigUint64Array(memory0.buffer.slice(ptr13, ptr13 + len13 * 8));
          let enum14;
          switch (dataView(memory0).getUint8(ret + 80, true)) {
            case 0: {
              enum14 = 'window';
              break;
            }
            case 1: {
              enum14 = 'hard-cap';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for LimitedBy');
            }
          }
          variant18= {
            tag: 'ok',
            val: {
              class: result10,
              policyVersion: result11,
              policyHash: result12,
              firstAttemptedAtMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 32, true)),
              deadlineMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
              schedule: {
                maxAttempts: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                expectedSpanMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                offsetsMs: result13,
                worstCaseSpanMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
                limitedBy: enum14,
              },
            }
          };
          break;
        }
        case 1: {
          let enum15;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum15 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum15 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum15 = 'invalid-window';
              break;
            }
            case 3: {
              enum15 = 'invalid-budget';
              break;
            }
            case 4: {
              enum15 = 'invalid-state';
              break;
            }
            case 5: {
              enum15 = 'invalid-status';
              break;
            }
            case 6: {
              enum15 = 'invalid-input';
              break;
            }
            case 7: {
              enum15 = 'invalid-document';
              break;
            }
            case 8: {
              enum15 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum15 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum15 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr16 = dataView(memory0).getInt32(ret + 12, true);
          var len16 = dataView(memory0).getInt32(ret + 16, true);
          var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
          var ptr17 = dataView(memory0).getInt32(ret + 20, true);
          var len17 = dataView(memory0).getInt32(ret + 24, true);
          var result17 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr17, len17));
          variant18= {
            tag: 'err',
            val: {
              code: enum15,
              field: result16,
              message: result17,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant18;
      postReturn4(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Evaluate;
    
    function evaluate(arg0, arg1, arg2, arg3) {
      var ptr0 = realloc0(0, 0, 8, 160);
      var {backoff: v1_0, windowMs: v1_1, hardCap: v1_2, budget: v1_3 } = arg0;
      var {baseMs: v2_0, factor: v2_1, capMs: v2_2, jitter: v2_3 } = v1_0;
      dataView(memory0).setBigInt64(ptr0 + 0, toUint64(v2_0), true);
      dataView(memory0).setFloat64(ptr0 + 8, +v2_1, true);
      dataView(memory0).setBigInt64(ptr0 + 16, toUint64(v2_2), true);
      var val3 = v2_3;
      let enum3;
      switch (val3) {
        case 'none': {
          enum3 = 0;
          break;
        }
        case 'full': {
          enum3 = 1;
          break;
        }
        case 'equal': {
          enum3 = 2;
          break;
        }
        default: {
          if ((v2_3) instanceof Error) {
            console.error(v2_3);
          }
          
          throw new TypeError(`"${val3}" is not one of the cases of jitter`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 24, enum3, true);
      dataView(memory0).setBigInt64(ptr0 + 32, toUint64(v1_1), true);
      dataView(memory0).setInt32(ptr0 + 40, toUint32(v1_2), true);
      var {ratio: v4_0, windowMs: v4_1, minSample: v4_2, sliding: v4_3 } = v1_3;
      dataView(memory0).setFloat64(ptr0 + 48, +v4_0, true);
      dataView(memory0).setBigInt64(ptr0 + 56, toUint64(v4_1), true);
      dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v4_2), true);
      dataView(memory0).setInt8(ptr0 + 72, v4_3 ? 1 : 0, true);
      var {eventId: v5_0, endpointId: v5_1, attempt: v5_2, maxAttempts: v5_3, firstAttemptedAtMs: v5_4, credentialsRefreshed: v5_5 } = arg1;
      var ptr6 = utf8Encode(v5_0, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 84, len6, true);
      dataView(memory0).setInt32(ptr0 + 80, ptr6, true);
      var ptr7 = utf8Encode(v5_1, realloc0, memory0);
      var len7 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 92, len7, true);
      dataView(memory0).setInt32(ptr0 + 88, ptr7, true);
      dataView(memory0).setInt32(ptr0 + 96, toUint32(v5_2), true);
      dataView(memory0).setInt32(ptr0 + 100, toUint32(v5_3), true);
      dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v5_4), true);
      dataView(memory0).setInt8(ptr0 + 112, v5_5 ? 1 : 0, true);
      var variant11 = arg2;
      switch (variant11.tag) {
        case 'response': {
          const e = variant11.val;
          dataView(memory0).setInt8(ptr0 + 120, 0, true);
          var {status: v8_0, retryAfterMs: v8_1 } = e;
          dataView(memory0).setInt16(ptr0 + 128, toUint16(v8_0), true);
          var variant9 = v8_1;
          if (variant9 === null || variant9=== undefined) {
            dataView(memory0).setInt8(ptr0 + 136, 0, true);
          } else {
            const e = variant9;
            dataView(memory0).setInt8(ptr0 + 136, 1, true);
            dataView(memory0).setBigInt64(ptr0 + 144, toUint64(e), true);
          }
          break;
        }
        case 'transport-error': {
          const e = variant11.val;
          dataView(memory0).setInt8(ptr0 + 120, 1, true);
          var ptr10 = utf8Encode(e, realloc0, memory0);
          var len10 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 132, len10, true);
          dataView(memory0).setInt32(ptr0 + 128, ptr10, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant11.tag)}\` (received \`${variant11}\`) specified for \`AttemptOutcome\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 152, toUint64(arg3), true);
      const ret = policy030Evaluate(ptr0);
      let variant27;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant20;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant20 = undefined;
              break;
            }
            case 1: {
              let variant19;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  var bool12 = dataView(memory0).getUint8(ret + 32, true);
                  variant19= {
                    tag: 'retry',
                    val: {
                      delayMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 24, true)),
                      refreshCredentials: bool12 == 0 ? false : (bool12 == 1 ? true : throwInvalidBool()),
                    }
                  };
                  break;
                }
                case 1: {
                  let enum13;
                  switch (dataView(memory0).getUint8(ret + 24, true)) {
                    case 0: {
                      enum13 = 'delivered';
                      break;
                    }
                    case 1: {
                      enum13 = 'terminal-response';
                      break;
                    }
                    case 2: {
                      enum13 = 'max-attempts-exhausted';
                      break;
                    }
                    case 3: {
                      enum13 = 'retry-window-elapsed';
                      break;
                    }
                    case 4: {
                      enum13 = 'retry-budget-exhausted';
                      break;
                    }
                    case 5: {
                      enum13 = 'budget-unavailable';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for StopReason');
                    }
                  }
                  var bool14 = dataView(memory0).getUint8(ret + 25, true);
                  let variant18;
                  switch (dataView(memory0).getUint8(ret + 32, true)) {
                    case 0: {
                      variant18 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr15 = dataView(memory0).getInt32(ret + 40, true);
                      var len15 = dataView(memory0).getInt32(ret + 44, true);
                      var result15 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr15, len15));
                      var ptr16 = dataView(memory0).getInt32(ret + 48, true);
                      var len16 = dataView(memory0).getInt32(ret + 52, true);
                      var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
                      let enum17;
                      switch (dataView(memory0).getUint8(ret + 72, true)) {
                        case 0: {
                          enum17 = 'delivered';
                          break;
                        }
                        case 1: {
                          enum17 = 'terminal-response';
                          break;
                        }
                        case 2: {
                          enum17 = 'max-attempts-exhausted';
                          break;
                        }
                        case 3: {
                          enum17 = 'retry-window-elapsed';
                          break;
                        }
                        case 4: {
                          enum17 = 'retry-budget-exhausted';
                          break;
                        }
                        case 5: {
                          enum17 = 'budget-unavailable';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for StopReason');
                        }
                      }
                      variant18 = {
                        eventId: result15,
                        endpointId: result16,
                        attempts: dataView(memory0).getInt32(ret + 56, true) >>> 0,
                        elapsedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
                        stopReason: enum17,
                      };
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  variant19= {
                    tag: 'stop',
                    val: {
                      reason: enum13,
                      disableEndpoint: bool14 == 0 ? false : (bool14 == 1 ? true : throwInvalidBool()),
                      deadLetter: variant18,
                    }
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for Decision');
                }
              }
              variant20 = variant19;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant23;
          switch (dataView(memory0).getUint8(ret + 80, true)) {
            case 0: {
              variant23 = undefined;
              break;
            }
            case 1: {
              let enum21;
              switch (dataView(memory0).getUint8(ret + 88, true)) {
                case 0: {
                  enum21 = 'record';
                  break;
                }
                case 1: {
                  enum21 = 'reserve';
                  break;
                }
                case 2: {
                  enum21 = 'record-reserve';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for StoreOp');
                }
              }
              var ptr22 = dataView(memory0).getInt32(ret + 92, true);
              var len22 = dataView(memory0).getInt32(ret + 96, true);
              var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
              variant23 = {
                op: enum21,
                endpointId: result22,
                windowMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 104, true)),
                bucket: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 112, true)),
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant27= {
            tag: 'ok',
            val: {
              decision: variant20,
              store: variant23,
            }
          };
          break;
        }
        case 1: {
          let enum24;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum24 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum24 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum24 = 'invalid-window';
              break;
            }
            case 3: {
              enum24 = 'invalid-budget';
              break;
            }
            case 4: {
              enum24 = 'invalid-state';
              break;
            }
            case 5: {
              enum24 = 'invalid-status';
              break;
            }
            case 6: {
              enum24 = 'invalid-input';
              break;
            }
            case 7: {
              enum24 = 'invalid-document';
              break;
            }
            case 8: {
              enum24 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum24 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum24 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr25 = dataView(memory0).getInt32(ret + 12, true);
          var len25 = dataView(memory0).getInt32(ret + 16, true);
          var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
          var ptr26 = dataView(memory0).getInt32(ret + 20, true);
          var len26 = dataView(memory0).getInt32(ret + 24, true);
          var result26 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr26, len26));
          variant27= {
            tag: 'err',
            val: {
              code: enum24,
              field: result25,
              message: result26,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant27;
      postReturn5(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Settle;
    
    function settle(arg0, arg1, arg2, arg3, arg4) {
      var ptr0 = realloc0(0, 0, 8, 208);
      var {backoff: v1_0, windowMs: v1_1, hardCap: v1_2, budget: v1_3 } = arg0;
      var {baseMs: v2_0, factor: v2_1, capMs: v2_2, jitter: v2_3 } = v1_0;
      dataView(memory0).setBigInt64(ptr0 + 0, toUint64(v2_0), true);
      dataView(memory0).setFloat64(ptr0 + 8, +v2_1, true);
      dataView(memory0).setBigInt64(ptr0 + 16, toUint64(v2_2), true);
      var val3 = v2_3;
      let enum3;
      switch (val3) {
        case 'none': {
          enum3 = 0;
          break;
        }
        case 'full': {
          enum3 = 1;
          break;
        }
        case 'equal': {
          enum3 = 2;
          break;
        }
        default: {
          if ((v2_3) instanceof Error) {
            console.error(v2_3);
          }
          
          throw new TypeError(`"${val3}" is not one of the cases of jitter`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 24, enum3, true);
      dataView(memory0).setBigInt64(ptr0 + 32, toUint64(v1_1), true);
      dataView(memory0).setInt32(ptr0 + 40, toUint32(v1_2), true);
      var {ratio: v4_0, windowMs: v4_1, minSample: v4_2, sliding: v4_3 } = v1_3;
      dataView(memory0).setFloat64(ptr0 + 48, +v4_0, true);
      dataView(memory0).setBigInt64(ptr0 + 56, toUint64(v4_1), true);
      dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v4_2), true);
      dataView(memory0).setInt8(ptr0 + 72, v4_3 ? 1 : 0, true);
      var {eventId: v5_0, endpointId: v5_1, attempt: v5_2, maxAttempts: v5_3, firstAttemptedAtMs: v5_4, credentialsRefreshed: v5_5 } = arg1;
      var ptr6 = utf8Encode(v5_0, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 84, len6, true);
      dataView(memory0).setInt32(ptr0 + 80, ptr6, true);
      var ptr7 = utf8Encode(v5_1, realloc0, memory0);
      var len7 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 92, len7, true);
      dataView(memory0).setInt32(ptr0 + 88, ptr7, true);
      dataView(memory0).setInt32(ptr0 + 96, toUint32(v5_2), true);
      dataView(memory0).setInt32(ptr0 + 100, toUint32(v5_3), true);
      dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v5_4), true);
      dataView(memory0).setInt8(ptr0 + 112, v5_5 ? 1 : 0, true);
      var variant11 = arg2;
      switch (variant11.tag) {
        case 'response': {
          const e = variant11.val;
          dataView(memory0).setInt8(ptr0 + 120, 0, true);
          var {status: v8_0, retryAfterMs: v8_1 } = e;
          dataView(memory0).setInt16(ptr0 + 128, toUint16(v8_0), true);
          var variant9 = v8_1;
          if (variant9 === null || variant9=== undefined) {
            dataView(memory0).setInt8(ptr0 + 136, 0, true);
          } else {
            const e = variant9;
            dataView(memory0).setInt8(ptr0 + 136, 1, true);
            dataView(memory0).setBigInt64(ptr0 + 144, toUint64(e), true);
          }
          break;
        }
        case 'transport-error': {
          const e = variant11.val;
          dataView(memory0).setInt8(ptr0 + 120, 1, true);
          var ptr10 = utf8Encode(e, realloc0, memory0);
          var len10 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 132, len10, true);
          dataView(memory0).setInt32(ptr0 + 128, ptr10, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant11.tag)}\` (received \`${variant11}\`) specified for \`AttemptOutcome\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 152, toUint64(arg3), true);
      var variant16 = arg4;
      switch (variant16.tag) {
        case 'unavailable': {
          dataView(memory0).setInt8(ptr0 + 160, 0, true);
          break;
        }
        case 'answered': {
          const e = variant16.val;
          dataView(memory0).setInt8(ptr0 + 160, 1, true);
          var {reserved: v12_0, counts: v12_1 } = e;
          dataView(memory0).setInt8(ptr0 + 168, v12_0 ? 1 : 0, true);
          var {current: v13_0, previous: v13_1 } = v12_1;
          var {total: v14_0, retries: v14_1 } = v13_0;
          dataView(memory0).setBigInt64(ptr0 + 176, toUint64(v14_0), true);
          dataView(memory0).setBigInt64(ptr0 + 184, toUint64(v14_1), true);
          var {total: v15_0, retries: v15_1 } = v13_1;
          dataView(memory0).setBigInt64(ptr0 + 192, toUint64(v15_0), true);
          dataView(memory0).setBigInt64(ptr0 + 200, toUint64(v15_1), true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant16.tag)}\` (received \`${variant16}\`) specified for \`StoreReply\``);
        }
      }
      const ret = policy030Settle(ptr0);
      let variant29;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant24;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              var bool17 = dataView(memory0).getUint8(ret + 24, true);
              variant24= {
                tag: 'retry',
                val: {
                  delayMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
                  refreshCredentials: bool17 == 0 ? false : (bool17 == 1 ? true : throwInvalidBool()),
                }
              };
              break;
            }
            case 1: {
              let enum18;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  enum18 = 'delivered';
                  break;
                }
                case 1: {
                  enum18 = 'terminal-response';
                  break;
                }
                case 2: {
                  enum18 = 'max-attempts-exhausted';
                  break;
                }
                case 3: {
                  enum18 = 'retry-window-elapsed';
                  break;
                }
                case 4: {
                  enum18 = 'retry-budget-exhausted';
                  break;
                }
                case 5: {
                  enum18 = 'budget-unavailable';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for StopReason');
                }
              }
              var bool19 = dataView(memory0).getUint8(ret + 17, true);
              let variant23;
              switch (dataView(memory0).getUint8(ret + 24, true)) {
                case 0: {
                  variant23 = undefined;
                  break;
                }
                case 1: {
                  var ptr20 = dataView(memory0).getInt32(ret + 32, true);
                  var len20 = dataView(memory0).getInt32(ret + 36, true);
                  var result20 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr20, len20));
                  var ptr21 = dataView(memory0).getInt32(ret + 40, true);
                  var len21 = dataView(memory0).getInt32(ret + 44, true);
                  var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
                  let enum22;
                  switch (dataView(memory0).getUint8(ret + 64, true)) {
                    case 0: {
                      enum22 = 'delivered';
                      break;
                    }
                    case 1: {
                      enum22 = 'terminal-response';
                      break;
                    }
                    case 2: {
                      enum22 = 'max-attempts-exhausted';
                      break;
                    }
                    case 3: {
                      enum22 = 'retry-window-elapsed';
                      break;
                    }
                    case 4: {
                      enum22 = 'retry-budget-exhausted';
                      break;
                    }
                    case 5: {
                      enum22 = 'budget-unavailable';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for StopReason');
                    }
                  }
                  variant23 = {
                    eventId: result20,
                    endpointId: result21,
                    attempts: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                    elapsedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                    stopReason: enum22,
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant24= {
                tag: 'stop',
                val: {
                  reason: enum18,
                  disableEndpoint: bool19 == 0 ? false : (bool19 == 1 ? true : throwInvalidBool()),
                  deadLetter: variant23,
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for Decision');
            }
          }
          var bool25 = dataView(memory0).getUint8(ret + 72, true);
          variant29= {
            tag: 'ok',
            val: {
              decision: variant24,
              budgetDisagreement: bool25 == 0 ? false : (bool25 == 1 ? true : throwInvalidBool()),
            }
          };
          break;
        }
        case 1: {
          let enum26;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum26 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum26 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum26 = 'invalid-window';
              break;
            }
            case 3: {
              enum26 = 'invalid-budget';
              break;
            }
            case 4: {
              enum26 = 'invalid-state';
              break;
            }
            case 5: {
              enum26 = 'invalid-status';
              break;
            }
            case 6: {
              enum26 = 'invalid-input';
              break;
            }
            case 7: {
              enum26 = 'invalid-document';
              break;
            }
            case 8: {
              enum26 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum26 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum26 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr27 = dataView(memory0).getInt32(ret + 12, true);
          var len27 = dataView(memory0).getInt32(ret + 16, true);
          var result27 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr27, len27));
          var ptr28 = dataView(memory0).getInt32(ret + 20, true);
          var len28 = dataView(memory0).getInt32(ret + 24, true);
          var result28 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr28, len28));
          variant29= {
            tag: 'err',
            val: {
              code: enum26,
              field: result27,
              message: result28,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant29;
      postReturn6(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Resume;
    
    function resume(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 128);
      var {backoff: v1_0, windowMs: v1_1, hardCap: v1_2, budget: v1_3 } = arg0;
      var {baseMs: v2_0, factor: v2_1, capMs: v2_2, jitter: v2_3 } = v1_0;
      dataView(memory0).setBigInt64(ptr0 + 0, toUint64(v2_0), true);
      dataView(memory0).setFloat64(ptr0 + 8, +v2_1, true);
      dataView(memory0).setBigInt64(ptr0 + 16, toUint64(v2_2), true);
      var val3 = v2_3;
      let enum3;
      switch (val3) {
        case 'none': {
          enum3 = 0;
          break;
        }
        case 'full': {
          enum3 = 1;
          break;
        }
        case 'equal': {
          enum3 = 2;
          break;
        }
        default: {
          if ((v2_3) instanceof Error) {
            console.error(v2_3);
          }
          
          throw new TypeError(`"${val3}" is not one of the cases of jitter`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 24, enum3, true);
      dataView(memory0).setBigInt64(ptr0 + 32, toUint64(v1_1), true);
      dataView(memory0).setInt32(ptr0 + 40, toUint32(v1_2), true);
      var {ratio: v4_0, windowMs: v4_1, minSample: v4_2, sliding: v4_3 } = v1_3;
      dataView(memory0).setFloat64(ptr0 + 48, +v4_0, true);
      dataView(memory0).setBigInt64(ptr0 + 56, toUint64(v4_1), true);
      dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v4_2), true);
      dataView(memory0).setInt8(ptr0 + 72, v4_3 ? 1 : 0, true);
      var {eventId: v5_0, endpointId: v5_1, attempt: v5_2, maxAttempts: v5_3, firstAttemptedAtMs: v5_4, credentialsRefreshed: v5_5 } = arg1;
      var ptr6 = utf8Encode(v5_0, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 84, len6, true);
      dataView(memory0).setInt32(ptr0 + 80, ptr6, true);
      var ptr7 = utf8Encode(v5_1, realloc0, memory0);
      var len7 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 92, len7, true);
      dataView(memory0).setInt32(ptr0 + 88, ptr7, true);
      dataView(memory0).setInt32(ptr0 + 96, toUint32(v5_2), true);
      dataView(memory0).setInt32(ptr0 + 100, toUint32(v5_3), true);
      dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v5_4), true);
      dataView(memory0).setInt8(ptr0 + 112, v5_5 ? 1 : 0, true);
      dataView(memory0).setBigInt64(ptr0 + 120, toUint64(arg2), true);
      const ret = policy030Resume(ptr0);
      let variant18;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant14;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant14= {
                tag: 'due',
              };
              break;
            }
            case 1: {
              let enum8;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  enum8 = 'delivered';
                  break;
                }
                case 1: {
                  enum8 = 'terminal-response';
                  break;
                }
                case 2: {
                  enum8 = 'max-attempts-exhausted';
                  break;
                }
                case 3: {
                  enum8 = 'retry-window-elapsed';
                  break;
                }
                case 4: {
                  enum8 = 'retry-budget-exhausted';
                  break;
                }
                case 5: {
                  enum8 = 'budget-unavailable';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for StopReason');
                }
              }
              var bool9 = dataView(memory0).getUint8(ret + 17, true);
              let variant13;
              switch (dataView(memory0).getUint8(ret + 24, true)) {
                case 0: {
                  variant13 = undefined;
                  break;
                }
                case 1: {
                  var ptr10 = dataView(memory0).getInt32(ret + 32, true);
                  var len10 = dataView(memory0).getInt32(ret + 36, true);
                  var result10 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr10, len10));
                  var ptr11 = dataView(memory0).getInt32(ret + 40, true);
                  var len11 = dataView(memory0).getInt32(ret + 44, true);
                  var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
                  let enum12;
                  switch (dataView(memory0).getUint8(ret + 64, true)) {
                    case 0: {
                      enum12 = 'delivered';
                      break;
                    }
                    case 1: {
                      enum12 = 'terminal-response';
                      break;
                    }
                    case 2: {
                      enum12 = 'max-attempts-exhausted';
                      break;
                    }
                    case 3: {
                      enum12 = 'retry-window-elapsed';
                      break;
                    }
                    case 4: {
                      enum12 = 'retry-budget-exhausted';
                      break;
                    }
                    case 5: {
                      enum12 = 'budget-unavailable';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for StopReason');
                    }
                  }
                  variant13 = {
                    eventId: result10,
                    endpointId: result11,
                    attempts: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                    elapsedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                    stopReason: enum12,
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant14= {
                tag: 'stop',
                val: {
                  reason: enum8,
                  disableEndpoint: bool9 == 0 ? false : (bool9 == 1 ? true : throwInvalidBool()),
                  deadLetter: variant13,
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for Resumption');
            }
          }
          variant18= {
            tag: 'ok',
            val: variant14
          };
          break;
        }
        case 1: {
          let enum15;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum15 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum15 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum15 = 'invalid-window';
              break;
            }
            case 3: {
              enum15 = 'invalid-budget';
              break;
            }
            case 4: {
              enum15 = 'invalid-state';
              break;
            }
            case 5: {
              enum15 = 'invalid-status';
              break;
            }
            case 6: {
              enum15 = 'invalid-input';
              break;
            }
            case 7: {
              enum15 = 'invalid-document';
              break;
            }
            case 8: {
              enum15 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum15 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum15 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr16 = dataView(memory0).getInt32(ret + 12, true);
          var len16 = dataView(memory0).getInt32(ret + 16, true);
          var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
          var ptr17 = dataView(memory0).getInt32(ret + 20, true);
          var len17 = dataView(memory0).getInt32(ret + 24, true);
          var result17 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr17, len17));
          variant18= {
            tag: 'err',
            val: {
              code: enum15,
              field: result16,
              message: result17,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant18;
      postReturn6(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030ParseRetryAfter;
    
    function parseRetryAfter(arg0, arg1) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy030ParseRetryAfter(ptr0, len0, toUint64(arg1));
      let variant1;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant1 = undefined;
          break;
        }
        case 1: {
          variant1 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 8, true));
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      return variant1;
    }
    let policy030StoreKey;
    
    function storeKey(arg0) {
      var {op: v0_0, endpointId: v0_1, windowMs: v0_2, bucket: v0_3 } = arg0;
      var val1 = v0_0;
      let enum1;
      switch (val1) {
        case 'record': {
          enum1 = 0;
          break;
        }
        case 'reserve': {
          enum1 = 1;
          break;
        }
        case 'record-reserve': {
          enum1 = 2;
          break;
        }
        default: {
          if ((v0_0) instanceof Error) {
            console.error(v0_0);
          }
          
          throw new TypeError(`"${val1}" is not one of the cases of store-op`);
        }
      }
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      const ret = policy030StoreKey(enum1, ptr2, len2, toUint64(v0_2), toUint64(v0_3));
      var ptr3 = dataView(memory0).getInt32(ret + 0, true);
      var len3 = dataView(memory0).getInt32(ret + 4, true);
      var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
      const retVal = result3;
      postReturn7(ret);
      return retVal;
    }
    let policy030StoreApply;
    
    function storeApply(arg0, arg1, arg2, arg3) {
      var {op: v0_0, endpointId: v0_1, windowMs: v0_2, bucket: v0_3 } = arg0;
      var val1 = v0_0;
      let enum1;
      switch (val1) {
        case 'record': {
          enum1 = 0;
          break;
        }
        case 'reserve': {
          enum1 = 1;
          break;
        }
        case 'record-reserve': {
          enum1 = 2;
          break;
        }
        default: {
          if ((v0_0) instanceof Error) {
            console.error(v0_0);
          }
          
          throw new TypeError(`"${val1}" is not one of the cases of store-op`);
        }
      }
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      var {ratio: v3_0, windowMs: v3_1, minSample: v3_2, sliding: v3_3 } = arg1;
      var {bucket: v4_0, current: v4_1, previous: v4_2 } = arg3;
      var {total: v5_0, retries: v5_1 } = v4_1;
      var {total: v6_0, retries: v6_1 } = v4_2;
      const ret = policy030StoreApply(enum1, ptr2, len2, toUint64(v0_2), toUint64(v0_3), +v3_0, toUint64(v3_1), toUint64(v3_2), v3_3 ? 1 : 0, toUint64(arg2), toUint64(v4_0), toUint64(v5_0), toUint64(v5_1), toUint64(v6_0), toUint64(v6_1));
      var bool7 = dataView(memory0).getUint8(ret + 0, true);
      return {
        reply: {
          reserved: bool7 == 0 ? false : (bool7 == 1 ? true : throwInvalidBool()),
          counts: {
            current: {
              total: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 8, true)),
              retries: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
            },
            previous: {
              total: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 24, true)),
              retries: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 32, true)),
            },
          },
        },
        held: {
          bucket: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
          current: {
            total: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 48, true)),
            retries: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
          },
          previous: {
            total: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
            retries: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
          },
        },
      };
    }
    let policy030Decide;
    
    function decide(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 152);
      var {backoff: v1_0, windowMs: v1_1, hardCap: v1_2, budget: v1_3 } = arg0;
      var {baseMs: v2_0, factor: v2_1, capMs: v2_2, jitter: v2_3 } = v1_0;
      dataView(memory0).setBigInt64(ptr0 + 0, toUint64(v2_0), true);
      dataView(memory0).setFloat64(ptr0 + 8, +v2_1, true);
      dataView(memory0).setBigInt64(ptr0 + 16, toUint64(v2_2), true);
      var val3 = v2_3;
      let enum3;
      switch (val3) {
        case 'none': {
          enum3 = 0;
          break;
        }
        case 'full': {
          enum3 = 1;
          break;
        }
        case 'equal': {
          enum3 = 2;
          break;
        }
        default: {
          if ((v2_3) instanceof Error) {
            console.error(v2_3);
          }
          
          throw new TypeError(`"${val3}" is not one of the cases of jitter`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 24, enum3, true);
      dataView(memory0).setBigInt64(ptr0 + 32, toUint64(v1_1), true);
      dataView(memory0).setInt32(ptr0 + 40, toUint32(v1_2), true);
      var {ratio: v4_0, windowMs: v4_1, minSample: v4_2, sliding: v4_3 } = v1_3;
      dataView(memory0).setFloat64(ptr0 + 48, +v4_0, true);
      dataView(memory0).setBigInt64(ptr0 + 56, toUint64(v4_1), true);
      dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v4_2), true);
      dataView(memory0).setInt8(ptr0 + 72, v4_3 ? 1 : 0, true);
      var {eventId: v5_0, endpointId: v5_1, attempt: v5_2, maxAttempts: v5_3, firstAttemptedAtMs: v5_4, credentialsRefreshed: v5_5 } = arg1;
      var ptr6 = utf8Encode(v5_0, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 84, len6, true);
      dataView(memory0).setInt32(ptr0 + 80, ptr6, true);
      var ptr7 = utf8Encode(v5_1, realloc0, memory0);
      var len7 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 92, len7, true);
      dataView(memory0).setInt32(ptr0 + 88, ptr7, true);
      dataView(memory0).setInt32(ptr0 + 96, toUint32(v5_2), true);
      dataView(memory0).setInt32(ptr0 + 100, toUint32(v5_3), true);
      dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v5_4), true);
      dataView(memory0).setInt8(ptr0 + 112, v5_5 ? 1 : 0, true);
      var variant11 = arg2;
      switch (variant11.tag) {
        case 'response': {
          const e = variant11.val;
          dataView(memory0).setInt8(ptr0 + 120, 0, true);
          var {status: v8_0, retryAfterMs: v8_1 } = e;
          dataView(memory0).setInt16(ptr0 + 128, toUint16(v8_0), true);
          var variant9 = v8_1;
          if (variant9 === null || variant9=== undefined) {
            dataView(memory0).setInt8(ptr0 + 136, 0, true);
          } else {
            const e = variant9;
            dataView(memory0).setInt8(ptr0 + 136, 1, true);
            dataView(memory0).setBigInt64(ptr0 + 144, toUint64(e), true);
          }
          break;
        }
        case 'transport-error': {
          const e = variant11.val;
          dataView(memory0).setInt8(ptr0 + 120, 1, true);
          var ptr10 = utf8Encode(e, realloc0, memory0);
          var len10 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 132, len10, true);
          dataView(memory0).setInt32(ptr0 + 128, ptr10, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant11.tag)}\` (received \`${variant11}\`) specified for \`AttemptOutcome\``);
        }
      }
      const ret = policy030Decide(ptr0);
      let variant23;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant19;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              var bool12 = dataView(memory0).getUint8(ret + 24, true);
              variant19= {
                tag: 'retry',
                val: {
                  delayMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
                  refreshCredentials: bool12 == 0 ? false : (bool12 == 1 ? true : throwInvalidBool()),
                }
              };
              break;
            }
            case 1: {
              let enum13;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  enum13 = 'delivered';
                  break;
                }
                case 1: {
                  enum13 = 'terminal-response';
                  break;
                }
                case 2: {
                  enum13 = 'max-attempts-exhausted';
                  break;
                }
                case 3: {
                  enum13 = 'retry-window-elapsed';
                  break;
                }
                case 4: {
                  enum13 = 'retry-budget-exhausted';
                  break;
                }
                case 5: {
                  enum13 = 'budget-unavailable';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for StopReason');
                }
              }
              var bool14 = dataView(memory0).getUint8(ret + 17, true);
              let variant18;
              switch (dataView(memory0).getUint8(ret + 24, true)) {
                case 0: {
                  variant18 = undefined;
                  break;
                }
                case 1: {
                  var ptr15 = dataView(memory0).getInt32(ret + 32, true);
                  var len15 = dataView(memory0).getInt32(ret + 36, true);
                  var result15 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr15, len15));
                  var ptr16 = dataView(memory0).getInt32(ret + 40, true);
                  var len16 = dataView(memory0).getInt32(ret + 44, true);
                  var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
                  let enum17;
                  switch (dataView(memory0).getUint8(ret + 64, true)) {
                    case 0: {
                      enum17 = 'delivered';
                      break;
                    }
                    case 1: {
                      enum17 = 'terminal-response';
                      break;
                    }
                    case 2: {
                      enum17 = 'max-attempts-exhausted';
                      break;
                    }
                    case 3: {
                      enum17 = 'retry-window-elapsed';
                      break;
                    }
                    case 4: {
                      enum17 = 'retry-budget-exhausted';
                      break;
                    }
                    case 5: {
                      enum17 = 'budget-unavailable';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for StopReason');
                    }
                  }
                  variant18 = {
                    eventId: result15,
                    endpointId: result16,
                    attempts: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                    elapsedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                    stopReason: enum17,
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant19= {
                tag: 'stop',
                val: {
                  reason: enum13,
                  disableEndpoint: bool14 == 0 ? false : (bool14 == 1 ? true : throwInvalidBool()),
                  deadLetter: variant18,
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for Decision');
            }
          }
          variant23= {
            tag: 'ok',
            val: variant19
          };
          break;
        }
        case 1: {
          let enum20;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum20 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum20 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum20 = 'invalid-window';
              break;
            }
            case 3: {
              enum20 = 'invalid-budget';
              break;
            }
            case 4: {
              enum20 = 'invalid-state';
              break;
            }
            case 5: {
              enum20 = 'invalid-status';
              break;
            }
            case 6: {
              enum20 = 'invalid-input';
              break;
            }
            case 7: {
              enum20 = 'invalid-document';
              break;
            }
            case 8: {
              enum20 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum20 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum20 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr21 = dataView(memory0).getInt32(ret + 12, true);
          var len21 = dataView(memory0).getInt32(ret + 16, true);
          var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
          var ptr22 = dataView(memory0).getInt32(ret + 20, true);
          var len22 = dataView(memory0).getInt32(ret + 24, true);
          var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
          variant23= {
            tag: 'err',
            val: {
              code: enum20,
              field: result21,
              message: result22,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant23;
      postReturn6(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030DecideWith;
    
    function decideWith(arg0, arg1, arg2, arg3, arg4) {
      var ptr0 = realloc0(0, 0, 8, 200);
      var {backoff: v1_0, windowMs: v1_1, hardCap: v1_2, budget: v1_3 } = arg0;
      var {baseMs: v2_0, factor: v2_1, capMs: v2_2, jitter: v2_3 } = v1_0;
      dataView(memory0).setBigInt64(ptr0 + 0, toUint64(v2_0), true);
      dataView(memory0).setFloat64(ptr0 + 8, +v2_1, true);
      dataView(memory0).setBigInt64(ptr0 + 16, toUint64(v2_2), true);
      var val3 = v2_3;
      let enum3;
      switch (val3) {
        case 'none': {
          enum3 = 0;
          break;
        }
        case 'full': {
          enum3 = 1;
          break;
        }
        case 'equal': {
          enum3 = 2;
          break;
        }
        default: {
          if ((v2_3) instanceof Error) {
            console.error(v2_3);
          }
          
          throw new TypeError(`"${val3}" is not one of the cases of jitter`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 24, enum3, true);
      dataView(memory0).setBigInt64(ptr0 + 32, toUint64(v1_1), true);
      dataView(memory0).setInt32(ptr0 + 40, toUint32(v1_2), true);
      var {ratio: v4_0, windowMs: v4_1, minSample: v4_2, sliding: v4_3 } = v1_3;
      dataView(memory0).setFloat64(ptr0 + 48, +v4_0, true);
      dataView(memory0).setBigInt64(ptr0 + 56, toUint64(v4_1), true);
      dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v4_2), true);
      dataView(memory0).setInt8(ptr0 + 72, v4_3 ? 1 : 0, true);
      var {eventId: v5_0, endpointId: v5_1, attempt: v5_2, maxAttempts: v5_3, firstAttemptedAtMs: v5_4, credentialsRefreshed: v5_5 } = arg1;
      var ptr6 = utf8Encode(v5_0, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 84, len6, true);
      dataView(memory0).setInt32(ptr0 + 80, ptr6, true);
      var ptr7 = utf8Encode(v5_1, realloc0, memory0);
      var len7 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 92, len7, true);
      dataView(memory0).setInt32(ptr0 + 88, ptr7, true);
      dataView(memory0).setInt32(ptr0 + 96, toUint32(v5_2), true);
      dataView(memory0).setInt32(ptr0 + 100, toUint32(v5_3), true);
      dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v5_4), true);
      dataView(memory0).setInt8(ptr0 + 112, v5_5 ? 1 : 0, true);
      var variant11 = arg2;
      switch (variant11.tag) {
        case 'response': {
          const e = variant11.val;
          dataView(memory0).setInt8(ptr0 + 120, 0, true);
          var {status: v8_0, retryAfterMs: v8_1 } = e;
          dataView(memory0).setInt16(ptr0 + 128, toUint16(v8_0), true);
          var variant9 = v8_1;
          if (variant9 === null || variant9=== undefined) {
            dataView(memory0).setInt8(ptr0 + 136, 0, true);
          } else {
            const e = variant9;
            dataView(memory0).setInt8(ptr0 + 136, 1, true);
            dataView(memory0).setBigInt64(ptr0 + 144, toUint64(e), true);
          }
          break;
        }
        case 'transport-error': {
          const e = variant11.val;
          dataView(memory0).setInt8(ptr0 + 120, 1, true);
          var ptr10 = utf8Encode(e, realloc0, memory0);
          var len10 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 132, len10, true);
          dataView(memory0).setInt32(ptr0 + 128, ptr10, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant11.tag)}\` (received \`${variant11}\`) specified for \`AttemptOutcome\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 152, toUint64(arg3), true);
      var variant15 = arg4;
      if (variant15 === null || variant15=== undefined) {
        dataView(memory0).setInt8(ptr0 + 160, 0, true);
      } else {
        const e = variant15;
        dataView(memory0).setInt8(ptr0 + 160, 1, true);
        var {current: v12_0, previous: v12_1 } = e;
        var {total: v13_0, retries: v13_1 } = v12_0;
        dataView(memory0).setBigInt64(ptr0 + 168, toUint64(v13_0), true);
        dataView(memory0).setBigInt64(ptr0 + 176, toUint64(v13_1), true);
        var {total: v14_0, retries: v14_1 } = v12_1;
        dataView(memory0).setBigInt64(ptr0 + 184, toUint64(v14_0), true);
        dataView(memory0).setBigInt64(ptr0 + 192, toUint64(v14_1), true);
      }
      const ret = policy030DecideWith(ptr0);
      let variant27;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant23;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              var bool16 = dataView(memory0).getUint8(ret + 24, true);
              variant23= {
                tag: 'retry',
                val: {
                  delayMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
                  refreshCredentials: bool16 == 0 ? false : (bool16 == 1 ? true : throwInvalidBool()),
                }
              };
              break;
            }
            case 1: {
              let enum17;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  enum17 = 'delivered';
                  break;
                }
                case 1: {
                  enum17 = 'terminal-response';
                  break;
                }
                case 2: {
                  enum17 = 'max-attempts-exhausted';
                  break;
                }
                case 3: {
                  enum17 = 'retry-window-elapsed';
                  break;
                }
                case 4: {
                  enum17 = 'retry-budget-exhausted';
                  break;
                }
                case 5: {
                  enum17 = 'budget-unavailable';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for StopReason');
                }
              }
              var bool18 = dataView(memory0).getUint8(ret + 17, true);
              let variant22;
              switch (dataView(memory0).getUint8(ret + 24, true)) {
                case 0: {
                  variant22 = undefined;
                  break;
                }
                case 1: {
                  var ptr19 = dataView(memory0).getInt32(ret + 32, true);
                  var len19 = dataView(memory0).getInt32(ret + 36, true);
                  var result19 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr19, len19));
                  var ptr20 = dataView(memory0).getInt32(ret + 40, true);
                  var len20 = dataView(memory0).getInt32(ret + 44, true);
                  var result20 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr20, len20));
                  let enum21;
                  switch (dataView(memory0).getUint8(ret + 64, true)) {
                    case 0: {
                      enum21 = 'delivered';
                      break;
                    }
                    case 1: {
                      enum21 = 'terminal-response';
                      break;
                    }
                    case 2: {
                      enum21 = 'max-attempts-exhausted';
                      break;
                    }
                    case 3: {
                      enum21 = 'retry-window-elapsed';
                      break;
                    }
                    case 4: {
                      enum21 = 'retry-budget-exhausted';
                      break;
                    }
                    case 5: {
                      enum21 = 'budget-unavailable';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for StopReason');
                    }
                  }
                  variant22 = {
                    eventId: result19,
                    endpointId: result20,
                    attempts: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                    elapsedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                    stopReason: enum21,
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant23= {
                tag: 'stop',
                val: {
                  reason: enum17,
                  disableEndpoint: bool18 == 0 ? false : (bool18 == 1 ? true : throwInvalidBool()),
                  deadLetter: variant22,
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for Decision');
            }
          }
          variant27= {
            tag: 'ok',
            val: variant23
          };
          break;
        }
        case 1: {
          let enum24;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum24 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum24 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum24 = 'invalid-window';
              break;
            }
            case 3: {
              enum24 = 'invalid-budget';
              break;
            }
            case 4: {
              enum24 = 'invalid-state';
              break;
            }
            case 5: {
              enum24 = 'invalid-status';
              break;
            }
            case 6: {
              enum24 = 'invalid-input';
              break;
            }
            case 7: {
              enum24 = 'invalid-document';
              break;
            }
            case 8: {
              enum24 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum24 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum24 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr25 = dataView(memory0).getInt32(ret + 12, true);
          var len25 = dataView(memory0).getInt32(ret + 16, true);
          var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
          var ptr26 = dataView(memory0).getInt32(ret + 20, true);
          var len26 = dataView(memory0).getInt32(ret + 24, true);
          var result26 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr26, len26));
          variant27= {
            tag: 'err',
            val: {
              code: enum24,
              field: result25,
              message: result26,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant27;
      postReturn6(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Compile;
    
    function compile(arg0, arg1) {
      var ptr0 = realloc0(0, 0, 8, 184);
      var {backoff: v1_0, windowMs: v1_1, hardCap: v1_2, budget: v1_3 } = arg0;
      var {baseMs: v2_0, factor: v2_1, capMs: v2_2, jitter: v2_3 } = v1_0;
      dataView(memory0).setBigInt64(ptr0 + 0, toUint64(v2_0), true);
      dataView(memory0).setFloat64(ptr0 + 8, +v2_1, true);
      dataView(memory0).setBigInt64(ptr0 + 16, toUint64(v2_2), true);
      var val3 = v2_3;
      let enum3;
      switch (val3) {
        case 'none': {
          enum3 = 0;
          break;
        }
        case 'full': {
          enum3 = 1;
          break;
        }
        case 'equal': {
          enum3 = 2;
          break;
        }
        default: {
          if ((v2_3) instanceof Error) {
            console.error(v2_3);
          }
          
          throw new TypeError(`"${val3}" is not one of the cases of jitter`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 24, enum3, true);
      dataView(memory0).setBigInt64(ptr0 + 32, toUint64(v1_1), true);
      dataView(memory0).setInt32(ptr0 + 40, toUint32(v1_2), true);
      var {ratio: v4_0, windowMs: v4_1, minSample: v4_2, sliding: v4_3 } = v1_3;
      dataView(memory0).setFloat64(ptr0 + 48, +v4_0, true);
      dataView(memory0).setBigInt64(ptr0 + 56, toUint64(v4_1), true);
      dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v4_2), true);
      dataView(memory0).setInt8(ptr0 + 72, v4_3 ? 1 : 0, true);
      var variant9 = arg1;
      if (variant9 === null || variant9=== undefined) {
        dataView(memory0).setInt8(ptr0 + 80, 0, true);
      } else {
        const e = variant9;
        dataView(memory0).setInt8(ptr0 + 80, 1, true);
        var {holdBudgetRefusals: v5_0, pauseMaxMs: v5_1, circuit: v5_2, release: v5_3, cacheMs: v5_4 } = e;
        dataView(memory0).setInt8(ptr0 + 88, v5_0 ? 1 : 0, true);
        dataView(memory0).setBigInt64(ptr0 + 96, toUint64(v5_1), true);
        var variant7 = v5_2;
        if (variant7 === null || variant7=== undefined) {
          dataView(memory0).setInt8(ptr0 + 104, 0, true);
        } else {
          const e = variant7;
          dataView(memory0).setInt8(ptr0 + 104, 1, true);
          var {failureRatio: v6_0, minSample: v6_1, cooldownMs: v6_2, cooldownMaxMs: v6_3, probes: v6_4, probeIntervalMs: v6_5 } = e;
          dataView(memory0).setFloat64(ptr0 + 112, +v6_0, true);
          dataView(memory0).setBigInt64(ptr0 + 120, toUint64(v6_1), true);
          dataView(memory0).setBigInt64(ptr0 + 128, toUint64(v6_2), true);
          dataView(memory0).setBigInt64(ptr0 + 136, toUint64(v6_3), true);
          dataView(memory0).setInt32(ptr0 + 144, toUint32(v6_4), true);
          dataView(memory0).setBigInt64(ptr0 + 152, toUint64(v6_5), true);
        }
        var {multiple: v8_0, floorPerS: v8_1 } = v5_3;
        dataView(memory0).setFloat64(ptr0 + 160, +v8_0, true);
        dataView(memory0).setFloat64(ptr0 + 168, +v8_1, true);
        dataView(memory0).setBigInt64(ptr0 + 176, toUint64(v5_4), true);
      }
      const ret = policy030Compile(ptr0);
      let variant13;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant13= {
            tag: 'ok',
            val: dataView(memory0).getInt32(ret + 4, true) >>> 0
          };
          break;
        }
        case 1: {
          let enum10;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              enum10 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum10 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum10 = 'invalid-window';
              break;
            }
            case 3: {
              enum10 = 'invalid-budget';
              break;
            }
            case 4: {
              enum10 = 'invalid-state';
              break;
            }
            case 5: {
              enum10 = 'invalid-status';
              break;
            }
            case 6: {
              enum10 = 'invalid-input';
              break;
            }
            case 7: {
              enum10 = 'invalid-document';
              break;
            }
            case 8: {
              enum10 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum10 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum10 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr11 = dataView(memory0).getInt32(ret + 8, true);
          var len11 = dataView(memory0).getInt32(ret + 12, true);
          var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
          var ptr12 = dataView(memory0).getInt32(ret + 16, true);
          var len12 = dataView(memory0).getInt32(ret + 20, true);
          var result12 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr12, len12));
          variant13= {
            tag: 'err',
            val: {
              code: enum10,
              field: result11,
              message: result12,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant13;
      postReturn2(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Discard;
    
    function discard(arg0) {
      policy030Discard(toUint32(arg0));
    }
    let policy030AdmitCompiled;
    
    function admitCompiled(arg0, arg1, arg2, arg3) {
      var ptr0 = utf8Encode(arg1, realloc0, memory0);
      var len0 = utf8EncodedLen;
      var ptr1 = utf8Encode(arg2, realloc0, memory0);
      var len1 = utf8EncodedLen;
      const ret = policy030AdmitCompiled(toUint32(arg0), ptr0, len0, ptr1, len1, toUint64(arg3));
      let variant10;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr2 = dataView(memory0).getInt32(ret + 8, true);
          var len2 = dataView(memory0).getInt32(ret + 12, true);
          var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
          var ptr3 = dataView(memory0).getInt32(ret + 16, true);
          var len3 = dataView(memory0).getInt32(ret + 20, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          var ptr4 = dataView(memory0).getInt32(ret + 24, true);
          var len4 = dataView(memory0).getInt32(ret + 28, true);
          var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
          var ptr5 = dataView(memory0).getInt32(ret + 64, true);
          var len5 = dataView(memory0).getInt32(ret + 68, true);
          var result5 = new BigUint64Array(memory0.buffer.slice(ptr5, ptr5 + len5 * 8));
          let enum6;
          switch (dataView(memory0).getUint8(ret + 80, true)) {
            case 0: {
              enum6 = 'window';
              break;
            }
            case 1: {
              enum6 = 'hard-cap';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for LimitedBy');
            }
          }
          variant10= {
            tag: 'ok',
            val: {
              class: result2,
              policyVersion: result3,
              policyHash: result4,
              firstAttemptedAtMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 32, true)),
              deadlineMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
              schedule: {
                maxAttempts: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                expectedSpanMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                offsetsMs: result5,
                worstCaseSpanMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
                limitedBy: enum6,
              },
            }
          };
          break;
        }
        case 1: {
          let enum7;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum7 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum7 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum7 = 'invalid-window';
              break;
            }
            case 3: {
              enum7 = 'invalid-budget';
              break;
            }
            case 4: {
              enum7 = 'invalid-state';
              break;
            }
            case 5: {
              enum7 = 'invalid-status';
              break;
            }
            case 6: {
              enum7 = 'invalid-input';
              break;
            }
            case 7: {
              enum7 = 'invalid-document';
              break;
            }
            case 8: {
              enum7 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum7 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum7 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr8 = dataView(memory0).getInt32(ret + 12, true);
          var len8 = dataView(memory0).getInt32(ret + 16, true);
          var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
          var ptr9 = dataView(memory0).getInt32(ret + 20, true);
          var len9 = dataView(memory0).getInt32(ret + 24, true);
          var result9 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr9, len9));
          variant10= {
            tag: 'err',
            val: {
              code: enum7,
              field: result8,
              message: result9,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant10;
      postReturn4(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Advance;
    
    function advance(arg0, arg1, arg2, arg3, arg4) {
      var {eventId: v0_0, endpointId: v0_1, attempt: v0_2, maxAttempts: v0_3, firstAttemptedAtMs: v0_4, credentialsRefreshed: v0_5 } = arg1;
      var ptr1 = utf8Encode(v0_0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      var variant6 = arg2;
      let variant6_0;
      let variant6_1;
      let variant6_2;
      let variant6_3;
      switch (variant6.tag) {
        case 'response': {
          const e = variant6.val;
          var {status: v3_0, retryAfterMs: v3_1 } = e;
          var variant4 = v3_1;
          let variant4_0;
          let variant4_1;
          if (variant4 === null || variant4=== undefined) {
            variant4_0 = 0;
            variant4_1 = 0n;
          } else {
            const e = variant4;
            variant4_0 = 1;
            variant4_1 = toUint64(e);
          }
          variant6_0 = 0;
          variant6_1 = toUint16(v3_0);
          variant6_2 = variant4_0;
          variant6_3 = variant4_1;
          break;
        }
        case 'transport-error': {
          const e = variant6.val;
          var ptr5 = utf8Encode(e, realloc0, memory0);
          var len5 = utf8EncodedLen;
          variant6_0 = 1;
          variant6_1 = ptr5;
          variant6_2 = len5;
          variant6_3 = 0n;
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant6.tag)}\` (received \`${variant6}\`) specified for \`AttemptOutcome\``);
        }
      }
      const ret = policy030Advance(toUint32(arg0), ptr1, len1, ptr2, len2, toUint32(v0_2), toUint32(v0_3), toUint64(v0_4), v0_5 ? 1 : 0, variant6_0, variant6_1, variant6_2, variant6_3, arg3 ? 1 : 0, toUint64(arg4));
      let variant36;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant32;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              let variant14;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  var bool7 = dataView(memory0).getUint8(ret + 32, true);
                  variant14= {
                    tag: 'retry',
                    val: {
                      delayMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 24, true)),
                      refreshCredentials: bool7 == 0 ? false : (bool7 == 1 ? true : throwInvalidBool()),
                    }
                  };
                  break;
                }
                case 1: {
                  let enum8;
                  switch (dataView(memory0).getUint8(ret + 24, true)) {
                    case 0: {
                      enum8 = 'delivered';
                      break;
                    }
                    case 1: {
                      enum8 = 'terminal-response';
                      break;
                    }
                    case 2: {
                      enum8 = 'max-attempts-exhausted';
                      break;
                    }
                    case 3: {
                      enum8 = 'retry-window-elapsed';
                      break;
                    }
                    case 4: {
                      enum8 = 'retry-budget-exhausted';
                      break;
                    }
                    case 5: {
                      enum8 = 'budget-unavailable';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for StopReason');
                    }
                  }
                  var bool9 = dataView(memory0).getUint8(ret + 25, true);
                  let variant13;
                  switch (dataView(memory0).getUint8(ret + 32, true)) {
                    case 0: {
                      variant13 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr10 = dataView(memory0).getInt32(ret + 40, true);
                      var len10 = dataView(memory0).getInt32(ret + 44, true);
                      var result10 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr10, len10));
                      var ptr11 = dataView(memory0).getInt32(ret + 48, true);
                      var len11 = dataView(memory0).getInt32(ret + 52, true);
                      var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
                      let enum12;
                      switch (dataView(memory0).getUint8(ret + 72, true)) {
                        case 0: {
                          enum12 = 'delivered';
                          break;
                        }
                        case 1: {
                          enum12 = 'terminal-response';
                          break;
                        }
                        case 2: {
                          enum12 = 'max-attempts-exhausted';
                          break;
                        }
                        case 3: {
                          enum12 = 'retry-window-elapsed';
                          break;
                        }
                        case 4: {
                          enum12 = 'retry-budget-exhausted';
                          break;
                        }
                        case 5: {
                          enum12 = 'budget-unavailable';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for StopReason');
                        }
                      }
                      variant13 = {
                        eventId: result10,
                        endpointId: result11,
                        attempts: dataView(memory0).getInt32(ret + 56, true) >>> 0,
                        elapsedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
                        stopReason: enum12,
                      };
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  variant14= {
                    tag: 'stop',
                    val: {
                      reason: enum8,
                      disableEndpoint: bool9 == 0 ? false : (bool9 == 1 ? true : throwInvalidBool()),
                      deadLetter: variant13,
                    }
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for Decision');
                }
              }
              let variant23;
              switch (dataView(memory0).getUint8(ret + 80, true)) {
                case 0: {
                  variant23 = undefined;
                  break;
                }
                case 1: {
                  let enum15;
                  switch (dataView(memory0).getUint8(ret + 88, true)) {
                    case 0: {
                      enum15 = 'record';
                      break;
                    }
                    case 1: {
                      enum15 = 'reserve';
                      break;
                    }
                    case 2: {
                      enum15 = 'record-reserve';
                      break;
                    }
                    case 3: {
                      enum15 = 'report';
                      break;
                    }
                    case 4: {
                      enum15 = 'probe';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for CallOp');
                    }
                  }
                  var ptr16 = dataView(memory0).getInt32(ret + 92, true);
                  var len16 = dataView(memory0).getInt32(ret + 96, true);
                  var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
                  var ptr17 = dataView(memory0).getInt32(ret + 100, true);
                  var len17 = dataView(memory0).getInt32(ret + 104, true);
                  var result17 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr17, len17));
                  var bool18 = dataView(memory0).getUint8(ret + 144, true);
                  let variant22;
                  switch (dataView(memory0).getUint8(ret + 152, true)) {
                    case 0: {
                      variant22 = undefined;
                      break;
                    }
                    case 1: {
                      let enum19;
                      switch (dataView(memory0).getUint8(ret + 160, true)) {
                        case 0: {
                          enum19 = 'success';
                          break;
                        }
                        case 1: {
                          enum19 = 'failure';
                          break;
                        }
                        case 2: {
                          enum19 = 'none';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for HealthOutcome');
                        }
                      }
                      var bool20 = dataView(memory0).getUint8(ret + 176, true);
                      let variant21;
                      switch (dataView(memory0).getUint8(ret + 184, true)) {
                        case 0: {
                          variant21 = undefined;
                          break;
                        }
                        case 1: {
                          variant21 = {
                            failureRatio: dataView(memory0).getFloat64(ret + 192, true),
                            minSample: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 200, true)),
                            cooldownMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 208, true)),
                            cooldownMaxMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 216, true)),
                            probes: dataView(memory0).getInt32(ret + 224, true) >>> 0,
                            probeIntervalMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 232, true)),
                          };
                          break;
                        }
                        default: {
                          throw new TypeError('invalid variant discriminant for option');
                        }
                      }
                      variant22 = {
                        outcome: enum19,
                        pauseUntilMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 168, true)),
                        probe: bool20 == 0 ? false : (bool20 == 1 ? true : throwInvalidBool()),
                        circuit: variant21,
                      };
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  variant23 = {
                    op: enum15,
                    key: result16,
                    endpointId: result17,
                    bucket: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 112, true)),
                    budget: {
                      ratio: dataView(memory0).getFloat64(ret + 120, true),
                      windowMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
                      minSample: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
                      sliding: bool18 == 0 ? false : (bool18 == 1 ? true : throwInvalidBool()),
                    },
                    health: variant22,
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant32= {
                tag: 'decided',
                val: {
                  decision: variant14,
                  call: variant23,
                }
              };
              break;
            }
            case 1: {
              let enum24;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  enum24 = 'record';
                  break;
                }
                case 1: {
                  enum24 = 'reserve';
                  break;
                }
                case 2: {
                  enum24 = 'record-reserve';
                  break;
                }
                case 3: {
                  enum24 = 'report';
                  break;
                }
                case 4: {
                  enum24 = 'probe';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CallOp');
                }
              }
              var ptr25 = dataView(memory0).getInt32(ret + 20, true);
              var len25 = dataView(memory0).getInt32(ret + 24, true);
              var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
              var ptr26 = dataView(memory0).getInt32(ret + 28, true);
              var len26 = dataView(memory0).getInt32(ret + 32, true);
              var result26 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr26, len26));
              var bool27 = dataView(memory0).getUint8(ret + 72, true);
              let variant31;
              switch (dataView(memory0).getUint8(ret + 80, true)) {
                case 0: {
                  variant31 = undefined;
                  break;
                }
                case 1: {
                  let enum28;
                  switch (dataView(memory0).getUint8(ret + 88, true)) {
                    case 0: {
                      enum28 = 'success';
                      break;
                    }
                    case 1: {
                      enum28 = 'failure';
                      break;
                    }
                    case 2: {
                      enum28 = 'none';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for HealthOutcome');
                    }
                  }
                  var bool29 = dataView(memory0).getUint8(ret + 104, true);
                  let variant30;
                  switch (dataView(memory0).getUint8(ret + 112, true)) {
                    case 0: {
                      variant30 = undefined;
                      break;
                    }
                    case 1: {
                      variant30 = {
                        failureRatio: dataView(memory0).getFloat64(ret + 120, true),
                        minSample: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
                        cooldownMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
                        cooldownMaxMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 144, true)),
                        probes: dataView(memory0).getInt32(ret + 152, true) >>> 0,
                        probeIntervalMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 160, true)),
                      };
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  variant31 = {
                    outcome: enum28,
                    pauseUntilMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 96, true)),
                    probe: bool29 == 0 ? false : (bool29 == 1 ? true : throwInvalidBool()),
                    circuit: variant30,
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant32= {
                tag: 'needs-store',
                val: {
                  op: enum24,
                  key: result25,
                  endpointId: result26,
                  bucket: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                  budget: {
                    ratio: dataView(memory0).getFloat64(ret + 48, true),
                    windowMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                    minSample: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
                    sliding: bool27 == 0 ? false : (bool27 == 1 ? true : throwInvalidBool()),
                  },
                  health: variant31,
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for AdvanceResult');
            }
          }
          variant36= {
            tag: 'ok',
            val: variant32
          };
          break;
        }
        case 1: {
          let enum33;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum33 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum33 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum33 = 'invalid-window';
              break;
            }
            case 3: {
              enum33 = 'invalid-budget';
              break;
            }
            case 4: {
              enum33 = 'invalid-state';
              break;
            }
            case 5: {
              enum33 = 'invalid-status';
              break;
            }
            case 6: {
              enum33 = 'invalid-input';
              break;
            }
            case 7: {
              enum33 = 'invalid-document';
              break;
            }
            case 8: {
              enum33 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum33 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum33 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr34 = dataView(memory0).getInt32(ret + 12, true);
          var len34 = dataView(memory0).getInt32(ret + 16, true);
          var result34 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr34, len34));
          var ptr35 = dataView(memory0).getInt32(ret + 20, true);
          var len35 = dataView(memory0).getInt32(ret + 24, true);
          var result35 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr35, len35));
          variant36= {
            tag: 'err',
            val: {
              code: enum33,
              field: result34,
              message: result35,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant36;
      postReturn8(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Finish;
    
    function finish(arg0, arg1, arg2, arg3, arg4) {
      var ptr0 = realloc0(0, 0, 8, 136);
      dataView(memory0).setInt32(ptr0 + 0, toUint32(arg0), true);
      var {eventId: v1_0, endpointId: v1_1, attempt: v1_2, maxAttempts: v1_3, firstAttemptedAtMs: v1_4, credentialsRefreshed: v1_5 } = arg1;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len2, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr2, true);
      var ptr3 = utf8Encode(v1_1, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len3, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr3, true);
      dataView(memory0).setInt32(ptr0 + 24, toUint32(v1_2), true);
      dataView(memory0).setInt32(ptr0 + 28, toUint32(v1_3), true);
      dataView(memory0).setBigInt64(ptr0 + 32, toUint64(v1_4), true);
      dataView(memory0).setInt8(ptr0 + 40, v1_5 ? 1 : 0, true);
      var variant7 = arg2;
      switch (variant7.tag) {
        case 'response': {
          const e = variant7.val;
          dataView(memory0).setInt8(ptr0 + 48, 0, true);
          var {status: v4_0, retryAfterMs: v4_1 } = e;
          dataView(memory0).setInt16(ptr0 + 56, toUint16(v4_0), true);
          var variant5 = v4_1;
          if (variant5 === null || variant5=== undefined) {
            dataView(memory0).setInt8(ptr0 + 64, 0, true);
          } else {
            const e = variant5;
            dataView(memory0).setInt8(ptr0 + 64, 1, true);
            dataView(memory0).setBigInt64(ptr0 + 72, toUint64(e), true);
          }
          break;
        }
        case 'transport-error': {
          const e = variant7.val;
          dataView(memory0).setInt8(ptr0 + 48, 1, true);
          var ptr6 = utf8Encode(e, realloc0, memory0);
          var len6 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 60, len6, true);
          dataView(memory0).setInt32(ptr0 + 56, ptr6, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant7.tag)}\` (received \`${variant7}\`) specified for \`AttemptOutcome\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 80, toUint64(arg3), true);
      var variant12 = arg4;
      switch (variant12.tag) {
        case 'unavailable': {
          dataView(memory0).setInt8(ptr0 + 88, 0, true);
          break;
        }
        case 'answered': {
          const e = variant12.val;
          dataView(memory0).setInt8(ptr0 + 88, 1, true);
          var {reserved: v8_0, counts: v8_1 } = e;
          dataView(memory0).setInt8(ptr0 + 96, v8_0 ? 1 : 0, true);
          var {current: v9_0, previous: v9_1 } = v8_1;
          var {total: v10_0, retries: v10_1 } = v9_0;
          dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v10_0), true);
          dataView(memory0).setBigInt64(ptr0 + 112, toUint64(v10_1), true);
          var {total: v11_0, retries: v11_1 } = v9_1;
          dataView(memory0).setBigInt64(ptr0 + 120, toUint64(v11_0), true);
          dataView(memory0).setBigInt64(ptr0 + 128, toUint64(v11_1), true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant12.tag)}\` (received \`${variant12}\`) specified for \`StoreReply\``);
        }
      }
      const ret = policy030Finish(ptr0);
      let variant26;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant21;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              var bool13 = dataView(memory0).getUint8(ret + 24, true);
              variant21= {
                tag: 'retry',
                val: {
                  delayMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
                  refreshCredentials: bool13 == 0 ? false : (bool13 == 1 ? true : throwInvalidBool()),
                }
              };
              break;
            }
            case 1: {
              var bool14 = dataView(memory0).getUint8(ret + 24, true);
              variant21= {
                tag: 'hold',
                val: {
                  untilMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
                  refreshCredentials: bool14 == 0 ? false : (bool14 == 1 ? true : throwInvalidBool()),
                }
              };
              break;
            }
            case 2: {
              let enum15;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  enum15 = 'delivered';
                  break;
                }
                case 1: {
                  enum15 = 'terminal-response';
                  break;
                }
                case 2: {
                  enum15 = 'max-attempts-exhausted';
                  break;
                }
                case 3: {
                  enum15 = 'retry-window-elapsed';
                  break;
                }
                case 4: {
                  enum15 = 'retry-budget-exhausted';
                  break;
                }
                case 5: {
                  enum15 = 'budget-unavailable';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for StopReason');
                }
              }
              var bool16 = dataView(memory0).getUint8(ret + 17, true);
              let variant20;
              switch (dataView(memory0).getUint8(ret + 24, true)) {
                case 0: {
                  variant20 = undefined;
                  break;
                }
                case 1: {
                  var ptr17 = dataView(memory0).getInt32(ret + 32, true);
                  var len17 = dataView(memory0).getInt32(ret + 36, true);
                  var result17 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr17, len17));
                  var ptr18 = dataView(memory0).getInt32(ret + 40, true);
                  var len18 = dataView(memory0).getInt32(ret + 44, true);
                  var result18 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr18, len18));
                  let enum19;
                  switch (dataView(memory0).getUint8(ret + 64, true)) {
                    case 0: {
                      enum19 = 'delivered';
                      break;
                    }
                    case 1: {
                      enum19 = 'terminal-response';
                      break;
                    }
                    case 2: {
                      enum19 = 'max-attempts-exhausted';
                      break;
                    }
                    case 3: {
                      enum19 = 'retry-window-elapsed';
                      break;
                    }
                    case 4: {
                      enum19 = 'retry-budget-exhausted';
                      break;
                    }
                    case 5: {
                      enum19 = 'budget-unavailable';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for StopReason');
                    }
                  }
                  variant20 = {
                    eventId: result17,
                    endpointId: result18,
                    attempts: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                    elapsedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                    stopReason: enum19,
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant21= {
                tag: 'stop',
                val: {
                  reason: enum15,
                  disableEndpoint: bool16 == 0 ? false : (bool16 == 1 ? true : throwInvalidBool()),
                  deadLetter: variant20,
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for Verdict');
            }
          }
          var bool22 = dataView(memory0).getUint8(ret + 72, true);
          variant26= {
            tag: 'ok',
            val: {
              verdict: variant21,
              budgetDisagreement: bool22 == 0 ? false : (bool22 == 1 ? true : throwInvalidBool()),
            }
          };
          break;
        }
        case 1: {
          let enum23;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum23 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum23 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum23 = 'invalid-window';
              break;
            }
            case 3: {
              enum23 = 'invalid-budget';
              break;
            }
            case 4: {
              enum23 = 'invalid-state';
              break;
            }
            case 5: {
              enum23 = 'invalid-status';
              break;
            }
            case 6: {
              enum23 = 'invalid-input';
              break;
            }
            case 7: {
              enum23 = 'invalid-document';
              break;
            }
            case 8: {
              enum23 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum23 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum23 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr24 = dataView(memory0).getInt32(ret + 12, true);
          var len24 = dataView(memory0).getInt32(ret + 16, true);
          var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
          var ptr25 = dataView(memory0).getInt32(ret + 20, true);
          var len25 = dataView(memory0).getInt32(ret + 24, true);
          var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
          variant26= {
            tag: 'err',
            val: {
              code: enum23,
              field: result24,
              message: result25,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant26;
      postReturn9(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Gate;
    
    function gate(arg0, arg1, arg2, arg3, arg4) {
      var ptr0 = realloc0(0, 0, 8, 136);
      dataView(memory0).setInt32(ptr0 + 0, toUint32(arg0), true);
      var {eventId: v1_0, endpointId: v1_1, attempts: v1_2, firstAttemptedAtMs: v1_3, held: v1_4, heldMs: v1_5 } = arg1;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len2, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr2, true);
      var ptr3 = utf8Encode(v1_1, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len3, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr3, true);
      dataView(memory0).setInt32(ptr0 + 24, toUint32(v1_2), true);
      dataView(memory0).setBigInt64(ptr0 + 32, toUint64(v1_3), true);
      dataView(memory0).setInt8(ptr0 + 40, v1_4 ? 1 : 0, true);
      dataView(memory0).setBigInt64(ptr0 + 48, toUint64(v1_5), true);
      var variant5 = arg2;
      if (variant5 === null || variant5=== undefined) {
        dataView(memory0).setInt8(ptr0 + 56, 0, true);
      } else {
        const e = variant5;
        dataView(memory0).setInt8(ptr0 + 56, 1, true);
        var {pausedUntilMs: v4_0, openedAtMs: v4_1, cooldownMs: v4_2, closedAtMs: v4_3, asOfMs: v4_4 } = e;
        dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v4_0), true);
        dataView(memory0).setBigInt64(ptr0 + 72, toUint64(v4_1), true);
        dataView(memory0).setBigInt64(ptr0 + 80, toUint64(v4_2), true);
        dataView(memory0).setBigInt64(ptr0 + 88, toUint64(v4_3), true);
        dataView(memory0).setBigInt64(ptr0 + 96, toUint64(v4_4), true);
      }
      var {tokens: v6_0, updatedMs: v6_1, normalPerS: v6_2 } = arg3;
      dataView(memory0).setFloat64(ptr0 + 104, +v6_0, true);
      dataView(memory0).setBigInt64(ptr0 + 112, toUint64(v6_1), true);
      dataView(memory0).setFloat64(ptr0 + 120, +v6_2, true);
      dataView(memory0).setBigInt64(ptr0 + 128, toUint64(arg4), true);
      const ret = policy030Gate(ptr0);
      let variant15;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant11;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant11= {
                tag: 'send',
              };
              break;
            }
            case 1: {
              variant11= {
                tag: 'send-probe',
              };
              break;
            }
            case 2: {
              variant11= {
                tag: 'probe',
              };
              break;
            }
            case 3: {
              let enum7;
              switch (dataView(memory0).getUint8(ret + 24, true)) {
                case 0: {
                  enum7 = 'paused';
                  break;
                }
                case 1: {
                  enum7 = 'circuit-open';
                  break;
                }
                case 2: {
                  enum7 = 'probe-refused';
                  break;
                }
                case 3: {
                  enum7 = 'release-pacing';
                  break;
                }
                case 4: {
                  enum7 = 'budget-refused';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for HoldReason');
                }
              }
              variant11= {
                tag: 'hold',
                val: {
                  untilMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
                  reason: enum7,
                }
              };
              break;
            }
            case 4: {
              var ptr8 = dataView(memory0).getInt32(ret + 16, true);
              var len8 = dataView(memory0).getInt32(ret + 20, true);
              var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
              var ptr9 = dataView(memory0).getInt32(ret + 24, true);
              var len9 = dataView(memory0).getInt32(ret + 28, true);
              var result9 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr9, len9));
              let enum10;
              switch (dataView(memory0).getUint8(ret + 48, true)) {
                case 0: {
                  enum10 = 'delivered';
                  break;
                }
                case 1: {
                  enum10 = 'terminal-response';
                  break;
                }
                case 2: {
                  enum10 = 'max-attempts-exhausted';
                  break;
                }
                case 3: {
                  enum10 = 'retry-window-elapsed';
                  break;
                }
                case 4: {
                  enum10 = 'retry-budget-exhausted';
                  break;
                }
                case 5: {
                  enum10 = 'budget-unavailable';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for StopReason');
                }
              }
              variant11= {
                tag: 'stop',
                val: {
                  deadLetter: {
                    eventId: result8,
                    endpointId: result9,
                    attempts: dataView(memory0).getInt32(ret + 32, true) >>> 0,
                    elapsedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                    stopReason: enum10,
                  },
                  heldMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for GateVerdict');
            }
          }
          variant15= {
            tag: 'ok',
            val: {
              verdict: variant11,
              pacer: {
                tokens: dataView(memory0).getFloat64(ret + 64, true),
                updatedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
                normalPerS: dataView(memory0).getFloat64(ret + 80, true),
              },
            }
          };
          break;
        }
        case 1: {
          let enum12;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum12 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum12 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum12 = 'invalid-window';
              break;
            }
            case 3: {
              enum12 = 'invalid-budget';
              break;
            }
            case 4: {
              enum12 = 'invalid-state';
              break;
            }
            case 5: {
              enum12 = 'invalid-status';
              break;
            }
            case 6: {
              enum12 = 'invalid-input';
              break;
            }
            case 7: {
              enum12 = 'invalid-document';
              break;
            }
            case 8: {
              enum12 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum12 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum12 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr13 = dataView(memory0).getInt32(ret + 12, true);
          var len13 = dataView(memory0).getInt32(ret + 16, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          var ptr14 = dataView(memory0).getInt32(ret + 20, true);
          var len14 = dataView(memory0).getInt32(ret + 24, true);
          var result14 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr14, len14));
          variant15= {
            tag: 'err',
            val: {
              code: enum12,
              field: result13,
              message: result14,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant15;
      postReturn10(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030AfterProbe;
    
    function afterProbe(arg0, arg1, arg2, arg3, arg4, arg5) {
      var ptr0 = realloc0(0, 0, 8, 136);
      dataView(memory0).setInt32(ptr0 + 0, toUint32(arg0), true);
      var {eventId: v1_0, endpointId: v1_1, attempts: v1_2, firstAttemptedAtMs: v1_3, held: v1_4, heldMs: v1_5 } = arg1;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len2, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr2, true);
      var ptr3 = utf8Encode(v1_1, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len3, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr3, true);
      dataView(memory0).setInt32(ptr0 + 24, toUint32(v1_2), true);
      dataView(memory0).setBigInt64(ptr0 + 32, toUint64(v1_3), true);
      dataView(memory0).setInt8(ptr0 + 40, v1_4 ? 1 : 0, true);
      dataView(memory0).setBigInt64(ptr0 + 48, toUint64(v1_5), true);
      dataView(memory0).setInt8(ptr0 + 56, arg2 ? 1 : 0, true);
      var {pausedUntilMs: v4_0, openedAtMs: v4_1, cooldownMs: v4_2, closedAtMs: v4_3, asOfMs: v4_4 } = arg3;
      dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v4_0), true);
      dataView(memory0).setBigInt64(ptr0 + 72, toUint64(v4_1), true);
      dataView(memory0).setBigInt64(ptr0 + 80, toUint64(v4_2), true);
      dataView(memory0).setBigInt64(ptr0 + 88, toUint64(v4_3), true);
      dataView(memory0).setBigInt64(ptr0 + 96, toUint64(v4_4), true);
      var {tokens: v5_0, updatedMs: v5_1, normalPerS: v5_2 } = arg4;
      dataView(memory0).setFloat64(ptr0 + 104, +v5_0, true);
      dataView(memory0).setBigInt64(ptr0 + 112, toUint64(v5_1), true);
      dataView(memory0).setFloat64(ptr0 + 120, +v5_2, true);
      dataView(memory0).setBigInt64(ptr0 + 128, toUint64(arg5), true);
      const ret = policy030AfterProbe(ptr0);
      let variant14;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant10;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant10= {
                tag: 'send',
              };
              break;
            }
            case 1: {
              variant10= {
                tag: 'send-probe',
              };
              break;
            }
            case 2: {
              variant10= {
                tag: 'probe',
              };
              break;
            }
            case 3: {
              let enum6;
              switch (dataView(memory0).getUint8(ret + 24, true)) {
                case 0: {
                  enum6 = 'paused';
                  break;
                }
                case 1: {
                  enum6 = 'circuit-open';
                  break;
                }
                case 2: {
                  enum6 = 'probe-refused';
                  break;
                }
                case 3: {
                  enum6 = 'release-pacing';
                  break;
                }
                case 4: {
                  enum6 = 'budget-refused';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for HoldReason');
                }
              }
              variant10= {
                tag: 'hold',
                val: {
                  untilMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
                  reason: enum6,
                }
              };
              break;
            }
            case 4: {
              var ptr7 = dataView(memory0).getInt32(ret + 16, true);
              var len7 = dataView(memory0).getInt32(ret + 20, true);
              var result7 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr7, len7));
              var ptr8 = dataView(memory0).getInt32(ret + 24, true);
              var len8 = dataView(memory0).getInt32(ret + 28, true);
              var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
              let enum9;
              switch (dataView(memory0).getUint8(ret + 48, true)) {
                case 0: {
                  enum9 = 'delivered';
                  break;
                }
                case 1: {
                  enum9 = 'terminal-response';
                  break;
                }
                case 2: {
                  enum9 = 'max-attempts-exhausted';
                  break;
                }
                case 3: {
                  enum9 = 'retry-window-elapsed';
                  break;
                }
                case 4: {
                  enum9 = 'retry-budget-exhausted';
                  break;
                }
                case 5: {
                  enum9 = 'budget-unavailable';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for StopReason');
                }
              }
              variant10= {
                tag: 'stop',
                val: {
                  deadLetter: {
                    eventId: result7,
                    endpointId: result8,
                    attempts: dataView(memory0).getInt32(ret + 32, true) >>> 0,
                    elapsedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                    stopReason: enum9,
                  },
                  heldMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for GateVerdict');
            }
          }
          variant14= {
            tag: 'ok',
            val: {
              verdict: variant10,
              pacer: {
                tokens: dataView(memory0).getFloat64(ret + 64, true),
                updatedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
                normalPerS: dataView(memory0).getFloat64(ret + 80, true),
              },
            }
          };
          break;
        }
        case 1: {
          let enum11;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum11 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum11 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum11 = 'invalid-window';
              break;
            }
            case 3: {
              enum11 = 'invalid-budget';
              break;
            }
            case 4: {
              enum11 = 'invalid-state';
              break;
            }
            case 5: {
              enum11 = 'invalid-status';
              break;
            }
            case 6: {
              enum11 = 'invalid-input';
              break;
            }
            case 7: {
              enum11 = 'invalid-document';
              break;
            }
            case 8: {
              enum11 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum11 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum11 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr12 = dataView(memory0).getInt32(ret + 12, true);
          var len12 = dataView(memory0).getInt32(ret + 16, true);
          var result12 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr12, len12));
          var ptr13 = dataView(memory0).getInt32(ret + 20, true);
          var len13 = dataView(memory0).getInt32(ret + 24, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          variant14= {
            tag: 'err',
            val: {
              code: enum11,
              field: result12,
              message: result13,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant14;
      postReturn10(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030SettleWake;
    
    function settleWake(arg0, arg1, arg2, arg3) {
      var {eventId: v0_0, endpointId: v0_1, attempts: v0_2, firstAttemptedAtMs: v0_3, refusals: v0_4 } = arg1;
      var ptr1 = utf8Encode(v0_0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      var variant7 = arg2;
      let variant7_0;
      let variant7_1;
      let variant7_2;
      let variant7_3;
      let variant7_4;
      let variant7_5;
      switch (variant7.tag) {
        case 'unavailable': {
          variant7_0 = 0;
          variant7_1 = 0;
          variant7_2 = 0n;
          variant7_3 = 0n;
          variant7_4 = 0n;
          variant7_5 = 0n;
          break;
        }
        case 'answered': {
          const e = variant7.val;
          var {reserved: v3_0, counts: v3_1 } = e;
          var {current: v4_0, previous: v4_1 } = v3_1;
          var {total: v5_0, retries: v5_1 } = v4_0;
          var {total: v6_0, retries: v6_1 } = v4_1;
          variant7_0 = 1;
          variant7_1 = v3_0 ? 1 : 0;
          variant7_2 = toUint64(v5_0);
          variant7_3 = toUint64(v5_1);
          variant7_4 = toUint64(v6_0);
          variant7_5 = toUint64(v6_1);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant7.tag)}\` (received \`${variant7}\`) specified for \`StoreReply\``);
        }
      }
      const ret = policy030SettleWake(toUint32(arg0), ptr1, len1, ptr2, len2, toUint32(v0_2), toUint64(v0_3), toUint32(v0_4), variant7_0, variant7_1, variant7_2, variant7_3, variant7_4, variant7_5, toUint64(arg3));
      let variant15;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant11;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant11= {
                tag: 'send',
              };
              break;
            }
            case 1: {
              variant11= {
                tag: 'hold',
                val: {
                  untilMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
                  refusals: dataView(memory0).getInt32(ret + 24, true) >>> 0,
                }
              };
              break;
            }
            case 2: {
              var ptr8 = dataView(memory0).getInt32(ret + 16, true);
              var len8 = dataView(memory0).getInt32(ret + 20, true);
              var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
              var ptr9 = dataView(memory0).getInt32(ret + 24, true);
              var len9 = dataView(memory0).getInt32(ret + 28, true);
              var result9 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr9, len9));
              let enum10;
              switch (dataView(memory0).getUint8(ret + 48, true)) {
                case 0: {
                  enum10 = 'delivered';
                  break;
                }
                case 1: {
                  enum10 = 'terminal-response';
                  break;
                }
                case 2: {
                  enum10 = 'max-attempts-exhausted';
                  break;
                }
                case 3: {
                  enum10 = 'retry-window-elapsed';
                  break;
                }
                case 4: {
                  enum10 = 'retry-budget-exhausted';
                  break;
                }
                case 5: {
                  enum10 = 'budget-unavailable';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for StopReason');
                }
              }
              variant11= {
                tag: 'stop',
                val: {
                  eventId: result8,
                  endpointId: result9,
                  attempts: dataView(memory0).getInt32(ret + 32, true) >>> 0,
                  elapsedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                  stopReason: enum10,
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for WakeVerdict');
            }
          }
          variant15= {
            tag: 'ok',
            val: variant11
          };
          break;
        }
        case 1: {
          let enum12;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum12 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum12 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum12 = 'invalid-window';
              break;
            }
            case 3: {
              enum12 = 'invalid-budget';
              break;
            }
            case 4: {
              enum12 = 'invalid-state';
              break;
            }
            case 5: {
              enum12 = 'invalid-status';
              break;
            }
            case 6: {
              enum12 = 'invalid-input';
              break;
            }
            case 7: {
              enum12 = 'invalid-document';
              break;
            }
            case 8: {
              enum12 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum12 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum12 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr13 = dataView(memory0).getInt32(ret + 12, true);
          var len13 = dataView(memory0).getInt32(ret + 16, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          var ptr14 = dataView(memory0).getInt32(ret + 20, true);
          var len14 = dataView(memory0).getInt32(ret + 24, true);
          var result14 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr14, len14));
          variant15= {
            tag: 'err',
            val: {
              code: enum12,
              field: result13,
              message: result14,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant15;
      postReturn11(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030CallFor;
    
    function callFor(arg0, arg1, arg2, arg3) {
      var val0 = arg1;
      let enum0;
      switch (val0) {
        case 'record': {
          enum0 = 0;
          break;
        }
        case 'reserve': {
          enum0 = 1;
          break;
        }
        case 'record-reserve': {
          enum0 = 2;
          break;
        }
        case 'report': {
          enum0 = 3;
          break;
        }
        case 'probe': {
          enum0 = 4;
          break;
        }
        default: {
          if ((arg1) instanceof Error) {
            console.error(arg1);
          }
          
          throw new TypeError(`"${val0}" is not one of the cases of call-op`);
        }
      }
      var ptr1 = utf8Encode(arg2, realloc0, memory0);
      var len1 = utf8EncodedLen;
      const ret = policy030CallFor(toUint32(arg0), enum0, ptr1, len1, toUint64(arg3));
      let variant13;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let enum2;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum2 = 'record';
              break;
            }
            case 1: {
              enum2 = 'reserve';
              break;
            }
            case 2: {
              enum2 = 'record-reserve';
              break;
            }
            case 3: {
              enum2 = 'report';
              break;
            }
            case 4: {
              enum2 = 'probe';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for CallOp');
            }
          }
          var ptr3 = dataView(memory0).getInt32(ret + 12, true);
          var len3 = dataView(memory0).getInt32(ret + 16, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          var ptr4 = dataView(memory0).getInt32(ret + 20, true);
          var len4 = dataView(memory0).getInt32(ret + 24, true);
          var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
          var bool5 = dataView(memory0).getUint8(ret + 64, true);
          let variant9;
          switch (dataView(memory0).getUint8(ret + 72, true)) {
            case 0: {
              variant9 = undefined;
              break;
            }
            case 1: {
              let enum6;
              switch (dataView(memory0).getUint8(ret + 80, true)) {
                case 0: {
                  enum6 = 'success';
                  break;
                }
                case 1: {
                  enum6 = 'failure';
                  break;
                }
                case 2: {
                  enum6 = 'none';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for HealthOutcome');
                }
              }
              var bool7 = dataView(memory0).getUint8(ret + 96, true);
              let variant8;
              switch (dataView(memory0).getUint8(ret + 104, true)) {
                case 0: {
                  variant8 = undefined;
                  break;
                }
                case 1: {
                  variant8 = {
                    failureRatio: dataView(memory0).getFloat64(ret + 112, true),
                    minSample: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
                    cooldownMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
                    cooldownMaxMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
                    probes: dataView(memory0).getInt32(ret + 144, true) >>> 0,
                    probeIntervalMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 152, true)),
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant9 = {
                outcome: enum6,
                pauseUntilMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 88, true)),
                probe: bool7 == 0 ? false : (bool7 == 1 ? true : throwInvalidBool()),
                circuit: variant8,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant13= {
            tag: 'ok',
            val: {
              op: enum2,
              key: result3,
              endpointId: result4,
              bucket: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 32, true)),
              budget: {
                ratio: dataView(memory0).getFloat64(ret + 40, true),
                windowMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 48, true)),
                minSample: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                sliding: bool5 == 0 ? false : (bool5 == 1 ? true : throwInvalidBool()),
              },
              health: variant9,
            }
          };
          break;
        }
        case 1: {
          let enum10;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum10 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum10 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum10 = 'invalid-window';
              break;
            }
            case 3: {
              enum10 = 'invalid-budget';
              break;
            }
            case 4: {
              enum10 = 'invalid-state';
              break;
            }
            case 5: {
              enum10 = 'invalid-status';
              break;
            }
            case 6: {
              enum10 = 'invalid-input';
              break;
            }
            case 7: {
              enum10 = 'invalid-document';
              break;
            }
            case 8: {
              enum10 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum10 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum10 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr11 = dataView(memory0).getInt32(ret + 12, true);
          var len11 = dataView(memory0).getInt32(ret + 16, true);
          var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
          var ptr12 = dataView(memory0).getInt32(ret + 20, true);
          var len12 = dataView(memory0).getInt32(ret + 24, true);
          var result12 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr12, len12));
          variant13= {
            tag: 'err',
            val: {
              code: enum10,
              field: result11,
              message: result12,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant13;
      postReturn12(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030ApplyCall;
    
    function applyCall(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 272);
      var {op: v1_0, key: v1_1, endpointId: v1_2, bucket: v1_3, budget: v1_4, health: v1_5 } = arg0;
      var val2 = v1_0;
      let enum2;
      switch (val2) {
        case 'record': {
          enum2 = 0;
          break;
        }
        case 'reserve': {
          enum2 = 1;
          break;
        }
        case 'record-reserve': {
          enum2 = 2;
          break;
        }
        case 'report': {
          enum2 = 3;
          break;
        }
        case 'probe': {
          enum2 = 4;
          break;
        }
        default: {
          if ((v1_0) instanceof Error) {
            console.error(v1_0);
          }
          
          throw new TypeError(`"${val2}" is not one of the cases of call-op`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 0, enum2, true);
      var ptr3 = utf8Encode(v1_1, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 8, len3, true);
      dataView(memory0).setInt32(ptr0 + 4, ptr3, true);
      var ptr4 = utf8Encode(v1_2, realloc0, memory0);
      var len4 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 16, len4, true);
      dataView(memory0).setInt32(ptr0 + 12, ptr4, true);
      dataView(memory0).setBigInt64(ptr0 + 24, toUint64(v1_3), true);
      var {ratio: v5_0, windowMs: v5_1, minSample: v5_2, sliding: v5_3 } = v1_4;
      dataView(memory0).setFloat64(ptr0 + 32, +v5_0, true);
      dataView(memory0).setBigInt64(ptr0 + 40, toUint64(v5_1), true);
      dataView(memory0).setBigInt64(ptr0 + 48, toUint64(v5_2), true);
      dataView(memory0).setInt8(ptr0 + 56, v5_3 ? 1 : 0, true);
      var variant10 = v1_5;
      if (variant10 === null || variant10=== undefined) {
        dataView(memory0).setInt8(ptr0 + 64, 0, true);
      } else {
        const e = variant10;
        dataView(memory0).setInt8(ptr0 + 64, 1, true);
        var {outcome: v6_0, pauseUntilMs: v6_1, probe: v6_2, circuit: v6_3 } = e;
        var val7 = v6_0;
        let enum7;
        switch (val7) {
          case 'success': {
            enum7 = 0;
            break;
          }
          case 'failure': {
            enum7 = 1;
            break;
          }
          case 'none': {
            enum7 = 2;
            break;
          }
          default: {
            if ((v6_0) instanceof Error) {
              console.error(v6_0);
            }
            
            throw new TypeError(`"${val7}" is not one of the cases of health-outcome`);
          }
        }
        dataView(memory0).setInt8(ptr0 + 72, enum7, true);
        dataView(memory0).setBigInt64(ptr0 + 80, toUint64(v6_1), true);
        dataView(memory0).setInt8(ptr0 + 88, v6_2 ? 1 : 0, true);
        var variant9 = v6_3;
        if (variant9 === null || variant9=== undefined) {
          dataView(memory0).setInt8(ptr0 + 96, 0, true);
        } else {
          const e = variant9;
          dataView(memory0).setInt8(ptr0 + 96, 1, true);
          var {failureRatio: v8_0, minSample: v8_1, cooldownMs: v8_2, cooldownMaxMs: v8_3, probes: v8_4, probeIntervalMs: v8_5 } = e;
          dataView(memory0).setFloat64(ptr0 + 104, +v8_0, true);
          dataView(memory0).setBigInt64(ptr0 + 112, toUint64(v8_1), true);
          dataView(memory0).setBigInt64(ptr0 + 120, toUint64(v8_2), true);
          dataView(memory0).setBigInt64(ptr0 + 128, toUint64(v8_3), true);
          dataView(memory0).setInt32(ptr0 + 136, toUint32(v8_4), true);
          dataView(memory0).setBigInt64(ptr0 + 144, toUint64(v8_5), true);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 152, toUint64(arg1), true);
      var {buckets: v11_0, health: v11_1 } = arg2;
      var {bucket: v12_0, current: v12_1, previous: v12_2 } = v11_0;
      dataView(memory0).setBigInt64(ptr0 + 160, toUint64(v12_0), true);
      var {total: v13_0, retries: v13_1 } = v12_1;
      dataView(memory0).setBigInt64(ptr0 + 168, toUint64(v13_0), true);
      dataView(memory0).setBigInt64(ptr0 + 176, toUint64(v13_1), true);
      var {total: v14_0, retries: v14_1 } = v12_2;
      dataView(memory0).setBigInt64(ptr0 + 184, toUint64(v14_0), true);
      dataView(memory0).setBigInt64(ptr0 + 192, toUint64(v14_1), true);
      var {failures: v15_0, pausedUntilMs: v15_1, openedAtMs: v15_2, cooldownMs: v15_3, probeWindow: v15_4, probesGranted: v15_5, closedAtMs: v15_6 } = v11_1;
      var {bucket: v16_0, current: v16_1, previous: v16_2 } = v15_0;
      dataView(memory0).setBigInt64(ptr0 + 200, toUint64(v16_0), true);
      dataView(memory0).setBigInt64(ptr0 + 208, toUint64(v16_1), true);
      dataView(memory0).setBigInt64(ptr0 + 216, toUint64(v16_2), true);
      dataView(memory0).setBigInt64(ptr0 + 224, toUint64(v15_1), true);
      dataView(memory0).setBigInt64(ptr0 + 232, toUint64(v15_2), true);
      dataView(memory0).setBigInt64(ptr0 + 240, toUint64(v15_3), true);
      dataView(memory0).setBigInt64(ptr0 + 248, toUint64(v15_4), true);
      dataView(memory0).setInt32(ptr0 + 256, toUint32(v15_5), true);
      dataView(memory0).setBigInt64(ptr0 + 264, toUint64(v15_6), true);
      const ret = policy030ApplyCall(ptr0);
      let variant25;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant18;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant18 = undefined;
              break;
            }
            case 1: {
              var bool17 = dataView(memory0).getUint8(ret + 16, true);
              variant18 = {
                reserved: bool17 == 0 ? false : (bool17 == 1 ? true : throwInvalidBool()),
                counts: {
                  current: {
                    total: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 24, true)),
                    retries: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 32, true)),
                  },
                  previous: {
                    total: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                    retries: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 48, true)),
                  },
                },
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant20;
          switch (dataView(memory0).getUint8(ret + 56, true)) {
            case 0: {
              variant20 = undefined;
              break;
            }
            case 1: {
              var bool19 = dataView(memory0).getUint8(ret + 57, true);
              variant20 = bool19 == 0 ? false : (bool19 == 1 ? true : throwInvalidBool());
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant21;
          switch (dataView(memory0).getUint8(ret + 64, true)) {
            case 0: {
              variant21 = undefined;
              break;
            }
            case 1: {
              variant21 = {
                pausedUntilMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
                openedAtMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
                cooldownMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 88, true)),
                closedAtMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 96, true)),
                asOfMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 104, true)),
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant25= {
            tag: 'ok',
            val: {
              reply: {
                reservation: variant18,
                granted: variant20,
                view: variant21,
              },
              held: {
                buckets: {
                  bucket: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 112, true)),
                  current: {
                    total: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
                    retries: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
                  },
                  previous: {
                    total: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
                    retries: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 144, true)),
                  },
                },
                health: {
                  failures: {
                    bucket: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 152, true)),
                    current: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 160, true)),
                    previous: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 168, true)),
                  },
                  pausedUntilMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 176, true)),
                  openedAtMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 184, true)),
                  cooldownMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 192, true)),
                  probeWindow: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 200, true)),
                  probesGranted: dataView(memory0).getInt32(ret + 208, true) >>> 0,
                  closedAtMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 216, true)),
                },
              },
            }
          };
          break;
        }
        case 1: {
          let enum22;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum22 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum22 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum22 = 'invalid-window';
              break;
            }
            case 3: {
              enum22 = 'invalid-budget';
              break;
            }
            case 4: {
              enum22 = 'invalid-state';
              break;
            }
            case 5: {
              enum22 = 'invalid-status';
              break;
            }
            case 6: {
              enum22 = 'invalid-input';
              break;
            }
            case 7: {
              enum22 = 'invalid-document';
              break;
            }
            case 8: {
              enum22 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum22 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum22 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr23 = dataView(memory0).getInt32(ret + 12, true);
          var len23 = dataView(memory0).getInt32(ret + 16, true);
          var result23 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr23, len23));
          var ptr24 = dataView(memory0).getInt32(ret + 20, true);
          var len24 = dataView(memory0).getInt32(ret + 24, true);
          var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
          variant25= {
            tag: 'err',
            val: {
              code: enum22,
              field: result23,
              message: result24,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant25;
      postReturn1(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030LoadHealthDocument;
    
    function loadHealthDocument(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy030LoadHealthDocument(ptr0, len0);
      let variant14;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 4, true);
          var len1 = dataView(memory0).getInt32(ret + 8, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          var len10 = dataView(memory0).getInt32(ret + 16, true);
          var base10 = dataView(memory0).getInt32(ret + 12, true);
          var result10 = [];
          for (let i = 0; i < len10; i++) {
            const base = base10 + i * 208;
            var ptr2 = dataView(memory0).getInt32(base + 0, true);
            var len2 = dataView(memory0).getInt32(base + 4, true);
            var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
            let enum3;
            switch (dataView(memory0).getUint8(base + 32, true)) {
              case 0: {
                enum3 = 'none';
                break;
              }
              case 1: {
                enum3 = 'full';
                break;
              }
              case 2: {
                enum3 = 'equal';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for Jitter');
              }
            }
            var bool4 = dataView(memory0).getUint8(base + 80, true);
            let variant7;
            switch (dataView(memory0).getUint8(base + 88, true)) {
              case 0: {
                variant7 = undefined;
                break;
              }
              case 1: {
                var bool5 = dataView(memory0).getUint8(base + 96, true);
                let variant6;
                switch (dataView(memory0).getUint8(base + 112, true)) {
                  case 0: {
                    variant6 = undefined;
                    break;
                  }
                  case 1: {
                    variant6 = {
                      failureRatio: dataView(memory0).getFloat64(base + 120, true),
                      minSample: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 128, true)),
                      cooldownMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 136, true)),
                      cooldownMaxMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 144, true)),
                      probes: dataView(memory0).getInt32(base + 152, true) >>> 0,
                      probeIntervalMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 160, true)),
                    };
                    break;
                  }
                  default: {
                    throw new TypeError('invalid variant discriminant for option');
                  }
                }
                variant7 = {
                  holdBudgetRefusals: bool5 == 0 ? false : (bool5 == 1 ? true : throwInvalidBool()),
                  pauseMaxMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 104, true)),
                  circuit: variant6,
                  release: {
                    multiple: dataView(memory0).getFloat64(base + 168, true),
                    floorPerS: dataView(memory0).getFloat64(base + 176, true),
                  },
                  cacheMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 184, true)),
                };
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            var ptr8 = dataView(memory0).getInt32(base + 192, true);
            var len8 = dataView(memory0).getInt32(base + 196, true);
            var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
            var ptr9 = dataView(memory0).getInt32(base + 200, true);
            var len9 = dataView(memory0).getInt32(base + 204, true);
            var result9 = new BigUint64Array(memory0.buffer.slice(ptr9, ptr9 + len9 * 8));
            result10.push({
              name: result2,
              policy: {
                backoff: {
                  baseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 8, true)),
                  factor: dataView(memory0).getFloat64(base + 16, true),
                  capMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 24, true)),
                  jitter: enum3,
                },
                windowMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 40, true)),
                hardCap: dataView(memory0).getInt32(base + 48, true) >>> 0,
                budget: {
                  ratio: dataView(memory0).getFloat64(base + 56, true),
                  windowMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 64, true)),
                  minSample: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 72, true)),
                  sliding: bool4 == 0 ? false : (bool4 == 1 ? true : throwInvalidBool()),
                },
              },
              health: variant7,
              policyHash: result8,
              hashWords: result9,
            });
          }
          variant14= {
            tag: 'ok',
            val: {
              version: result1,
              classes: result10,
            }
          };
          break;
        }
        case 1: {
          let enum11;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              enum11 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum11 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum11 = 'invalid-window';
              break;
            }
            case 3: {
              enum11 = 'invalid-budget';
              break;
            }
            case 4: {
              enum11 = 'invalid-state';
              break;
            }
            case 5: {
              enum11 = 'invalid-status';
              break;
            }
            case 6: {
              enum11 = 'invalid-input';
              break;
            }
            case 7: {
              enum11 = 'invalid-document';
              break;
            }
            case 8: {
              enum11 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum11 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum11 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr12 = dataView(memory0).getInt32(ret + 8, true);
          var len12 = dataView(memory0).getInt32(ret + 12, true);
          var result12 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr12, len12));
          var ptr13 = dataView(memory0).getInt32(ret + 16, true);
          var len13 = dataView(memory0).getInt32(ret + 20, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          variant14= {
            tag: 'err',
            val: {
              code: enum11,
              field: result12,
              message: result13,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant14;
      postReturn13(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030Pace;
    
    function pace(arg0, arg1, arg2) {
      var {multiple: v0_0, floorPerS: v0_1 } = arg0;
      var {tokens: v1_0, updatedMs: v1_1, normalPerS: v1_2 } = arg1;
      const ret = policy030Pace(+v0_0, +v0_1, +v1_0, toUint64(v1_1), +v1_2, toUint64(arg2));
      let variant6;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant2;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant2= {
                tag: 'send',
              };
              break;
            }
            case 1: {
              variant2= {
                tag: 'wait',
                val: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true))
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for PaceVerdict');
            }
          }
          variant6= {
            tag: 'ok',
            val: {
              verdict: variant2,
              pacer: {
                tokens: dataView(memory0).getFloat64(ret + 24, true),
                updatedMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 32, true)),
                normalPerS: dataView(memory0).getFloat64(ret + 40, true),
              },
            }
          };
          break;
        }
        case 1: {
          let enum3;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum3 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum3 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum3 = 'invalid-window';
              break;
            }
            case 3: {
              enum3 = 'invalid-budget';
              break;
            }
            case 4: {
              enum3 = 'invalid-state';
              break;
            }
            case 5: {
              enum3 = 'invalid-status';
              break;
            }
            case 6: {
              enum3 = 'invalid-input';
              break;
            }
            case 7: {
              enum3 = 'invalid-document';
              break;
            }
            case 8: {
              enum3 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum3 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum3 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr4 = dataView(memory0).getInt32(ret + 12, true);
          var len4 = dataView(memory0).getInt32(ret + 16, true);
          var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
          var ptr5 = dataView(memory0).getInt32(ret + 20, true);
          var len5 = dataView(memory0).getInt32(ret + 24, true);
          var result5 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr5, len5));
          variant6= {
            tag: 'err',
            val: {
              code: enum3,
              field: result4,
              message: result5,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant6;
      postReturn1(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030NormalPerS;
    
    function normalPerS(arg0, arg1, arg2, arg3) {
      var {ratio: v0_0, windowMs: v0_1, minSample: v0_2, sliding: v0_3 } = arg0;
      const ret = policy030NormalPerS(+v0_0, toUint64(v0_1), toUint64(v0_2), v0_3 ? 1 : 0, toUint64(arg1), toUint64(arg2), toUint64(arg3));
      let variant4;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant4= {
            tag: 'ok',
            val: dataView(memory0).getFloat64(ret + 8, true)
          };
          break;
        }
        case 1: {
          let enum1;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum1 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum1 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum1 = 'invalid-window';
              break;
            }
            case 3: {
              enum1 = 'invalid-budget';
              break;
            }
            case 4: {
              enum1 = 'invalid-state';
              break;
            }
            case 5: {
              enum1 = 'invalid-status';
              break;
            }
            case 6: {
              enum1 = 'invalid-input';
              break;
            }
            case 7: {
              enum1 = 'invalid-document';
              break;
            }
            case 8: {
              enum1 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum1 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum1 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr2 = dataView(memory0).getInt32(ret + 12, true);
          var len2 = dataView(memory0).getInt32(ret + 16, true);
          var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
          var ptr3 = dataView(memory0).getInt32(ret + 20, true);
          var len3 = dataView(memory0).getInt32(ret + 24, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant4= {
            tag: 'err',
            val: {
              code: enum1,
              field: result2,
              message: result3,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant4;
      postReturn1(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030HealthOutcomeOf;
    
    function healthOutcomeOf(arg0) {
      var variant3 = arg0;
      let variant3_0;
      let variant3_1;
      let variant3_2;
      let variant3_3;
      switch (variant3.tag) {
        case 'response': {
          const e = variant3.val;
          var {status: v0_0, retryAfterMs: v0_1 } = e;
          var variant1 = v0_1;
          let variant1_0;
          let variant1_1;
          if (variant1 === null || variant1=== undefined) {
            variant1_0 = 0;
            variant1_1 = 0n;
          } else {
            const e = variant1;
            variant1_0 = 1;
            variant1_1 = toUint64(e);
          }
          variant3_0 = 0;
          variant3_1 = toUint16(v0_0);
          variant3_2 = variant1_0;
          variant3_3 = variant1_1;
          break;
        }
        case 'transport-error': {
          const e = variant3.val;
          var ptr2 = utf8Encode(e, realloc0, memory0);
          var len2 = utf8EncodedLen;
          variant3_0 = 1;
          variant3_1 = ptr2;
          variant3_2 = len2;
          variant3_3 = 0n;
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant3.tag)}\` (received \`${variant3}\`) specified for \`AttemptOutcome\``);
        }
      }
      const ret = policy030HealthOutcomeOf(variant3_0, variant3_1, variant3_2, variant3_3);
      let variant8;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let enum4;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              enum4 = 'success';
              break;
            }
            case 1: {
              enum4 = 'failure';
              break;
            }
            case 2: {
              enum4 = 'none';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for HealthOutcome');
            }
          }
          variant8= {
            tag: 'ok',
            val: enum4
          };
          break;
        }
        case 1: {
          let enum5;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              enum5 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum5 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum5 = 'invalid-window';
              break;
            }
            case 3: {
              enum5 = 'invalid-budget';
              break;
            }
            case 4: {
              enum5 = 'invalid-state';
              break;
            }
            case 5: {
              enum5 = 'invalid-status';
              break;
            }
            case 6: {
              enum5 = 'invalid-input';
              break;
            }
            case 7: {
              enum5 = 'invalid-document';
              break;
            }
            case 8: {
              enum5 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum5 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum5 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr6 = dataView(memory0).getInt32(ret + 8, true);
          var len6 = dataView(memory0).getInt32(ret + 12, true);
          var result6 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr6, len6));
          var ptr7 = dataView(memory0).getInt32(ret + 16, true);
          var len7 = dataView(memory0).getInt32(ret + 20, true);
          var result7 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr7, len7));
          variant8= {
            tag: 'err',
            val: {
              code: enum5,
              field: result6,
              message: result7,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant8;
      postReturn2(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030PauseUntil;
    
    function pauseUntil(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 136);
      var {holdBudgetRefusals: v1_0, pauseMaxMs: v1_1, circuit: v1_2, release: v1_3, cacheMs: v1_4 } = arg0;
      dataView(memory0).setInt8(ptr0 + 0, v1_0 ? 1 : 0, true);
      dataView(memory0).setBigInt64(ptr0 + 8, toUint64(v1_1), true);
      var variant3 = v1_2;
      if (variant3 === null || variant3=== undefined) {
        dataView(memory0).setInt8(ptr0 + 16, 0, true);
      } else {
        const e = variant3;
        dataView(memory0).setInt8(ptr0 + 16, 1, true);
        var {failureRatio: v2_0, minSample: v2_1, cooldownMs: v2_2, cooldownMaxMs: v2_3, probes: v2_4, probeIntervalMs: v2_5 } = e;
        dataView(memory0).setFloat64(ptr0 + 24, +v2_0, true);
        dataView(memory0).setBigInt64(ptr0 + 32, toUint64(v2_1), true);
        dataView(memory0).setBigInt64(ptr0 + 40, toUint64(v2_2), true);
        dataView(memory0).setBigInt64(ptr0 + 48, toUint64(v2_3), true);
        dataView(memory0).setInt32(ptr0 + 56, toUint32(v2_4), true);
        dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v2_5), true);
      }
      var {multiple: v4_0, floorPerS: v4_1 } = v1_3;
      dataView(memory0).setFloat64(ptr0 + 72, +v4_0, true);
      dataView(memory0).setFloat64(ptr0 + 80, +v4_1, true);
      dataView(memory0).setBigInt64(ptr0 + 88, toUint64(v1_4), true);
      var variant8 = arg1;
      switch (variant8.tag) {
        case 'response': {
          const e = variant8.val;
          dataView(memory0).setInt8(ptr0 + 96, 0, true);
          var {status: v5_0, retryAfterMs: v5_1 } = e;
          dataView(memory0).setInt16(ptr0 + 104, toUint16(v5_0), true);
          var variant6 = v5_1;
          if (variant6 === null || variant6=== undefined) {
            dataView(memory0).setInt8(ptr0 + 112, 0, true);
          } else {
            const e = variant6;
            dataView(memory0).setInt8(ptr0 + 112, 1, true);
            dataView(memory0).setBigInt64(ptr0 + 120, toUint64(e), true);
          }
          break;
        }
        case 'transport-error': {
          const e = variant8.val;
          dataView(memory0).setInt8(ptr0 + 96, 1, true);
          var ptr7 = utf8Encode(e, realloc0, memory0);
          var len7 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 108, len7, true);
          dataView(memory0).setInt32(ptr0 + 104, ptr7, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant8.tag)}\` (received \`${variant8}\`) specified for \`AttemptOutcome\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 128, toUint64(arg2), true);
      const ret = policy030PauseUntil(ptr0);
      let variant12;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant12= {
            tag: 'ok',
            val: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 8, true))
          };
          break;
        }
        case 1: {
          let enum9;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum9 = 'invalid-backoff';
              break;
            }
            case 1: {
              enum9 = 'invalid-hard-cap';
              break;
            }
            case 2: {
              enum9 = 'invalid-window';
              break;
            }
            case 3: {
              enum9 = 'invalid-budget';
              break;
            }
            case 4: {
              enum9 = 'invalid-state';
              break;
            }
            case 5: {
              enum9 = 'invalid-status';
              break;
            }
            case 6: {
              enum9 = 'invalid-input';
              break;
            }
            case 7: {
              enum9 = 'invalid-document';
              break;
            }
            case 8: {
              enum9 = 'unknown-event-class';
              break;
            }
            case 9: {
              enum9 = 'invalid-retry-index';
              break;
            }
            case 10: {
              enum9 = 'document-too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ErrorCode');
            }
          }
          var ptr10 = dataView(memory0).getInt32(ret + 12, true);
          var len10 = dataView(memory0).getInt32(ret + 16, true);
          var result10 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr10, len10));
          var ptr11 = dataView(memory0).getInt32(ret + 20, true);
          var len11 = dataView(memory0).getInt32(ret + 24, true);
          var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
          variant12= {
            tag: 'err',
            val: {
              code: enum9,
              field: result10,
              message: result11,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant12;
      postReturn1(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030EngineOpen;
    
    function engineOpen(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy030EngineOpen(ptr0, len0);
      let variant2;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant2= {
            tag: 'ok',
            val: dataView(memory0).getInt32(ret + 4, true) >>> 0
          };
          break;
        }
        case 1: {
          var ptr1 = dataView(memory0).getInt32(ret + 4, true);
          var len1 = dataView(memory0).getInt32(ret + 8, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          variant2= {
            tag: 'err',
            val: result1
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant2;
      postReturn14(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030EngineFeed;
    
    function engineFeed(arg0, arg1) {
      var ptr0 = utf8Encode(arg1, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy030EngineFeed(toUint32(arg0), ptr0, len0);
      let variant3;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 4, true);
          var len1 = dataView(memory0).getInt32(ret + 8, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          variant3= {
            tag: 'ok',
            val: result1
          };
          break;
        }
        case 1: {
          var ptr2 = dataView(memory0).getInt32(ret + 4, true);
          var len2 = dataView(memory0).getInt32(ret + 8, true);
          var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
          variant3= {
            tag: 'err',
            val: result2
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant3;
      postReturn15(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030EngineResume;
    
    function engineResume(arg0, arg1, arg2) {
      var val0 = arg2;
      var len0 = val0.byteLength;
      var ptr0 = realloc0(0, 0, 1, len0 * 1);
      var src0 = new Uint8Array(val0.buffer || val0, val0.byteOffset, len0 * 1);
      (new Uint8Array(memory0.buffer, ptr0, len0 * 1)).set(src0);
      const ret = policy030EngineResume(toUint32(arg0), toUint64(arg1), ptr0, len0);
      let variant3;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 4, true);
          var len1 = dataView(memory0).getInt32(ret + 8, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          variant3= {
            tag: 'ok',
            val: result1
          };
          break;
        }
        case 1: {
          var ptr2 = dataView(memory0).getInt32(ret + 4, true);
          var len2 = dataView(memory0).getInt32(ret + 8, true);
          var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
          variant3= {
            tag: 'err',
            val: result2
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant3;
      postReturn15(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030EngineClose;
    
    function engineClose(arg0) {
      policy030EngineClose(toUint32(arg0));
    }
    let policy030ReadTarget;
    
    function readTarget(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy030ReadTarget(ptr0, len0);
      let variant7;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 4, true);
          var len1 = dataView(memory0).getInt32(ret + 8, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          var ptr2 = dataView(memory0).getInt32(ret + 12, true);
          var len2 = dataView(memory0).getInt32(ret + 16, true);
          var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
          var ptr3 = dataView(memory0).getInt32(ret + 24, true);
          var len3 = dataView(memory0).getInt32(ret + 28, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          let variant5;
          switch (dataView(memory0).getUint8(ret + 32, true)) {
            case 0: {
              variant5 = undefined;
              break;
            }
            case 1: {
              var ptr4 = dataView(memory0).getInt32(ret + 36, true);
              var len4 = dataView(memory0).getInt32(ret + 40, true);
              var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
              variant5 = result4;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant7= {
            tag: 'ok',
            val: {
              scheme: result1,
              host: result2,
              port: clampGuest(dataView(memory0).getUint16(ret + 20, true), 0, 65535),
              path: result3,
              address: variant5,
            }
          };
          break;
        }
        case 1: {
          var ptr6 = dataView(memory0).getInt32(ret + 4, true);
          var len6 = dataView(memory0).getInt32(ret + 8, true);
          var result6 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr6, len6));
          variant7= {
            tag: 'err',
            val: result6
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant7;
      postReturn16(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy030DestinationRefusal;
    
    function destinationRefusal(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy030DestinationRefusal(ptr0, len0);
      let variant4;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant2;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              variant2 = undefined;
              break;
            }
            case 1: {
              var ptr1 = dataView(memory0).getInt32(ret + 8, true);
              var len1 = dataView(memory0).getInt32(ret + 12, true);
              var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
              variant2 = result1;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant4= {
            tag: 'ok',
            val: variant2
          };
          break;
        }
        case 1: {
          var ptr3 = dataView(memory0).getInt32(ret + 4, true);
          var len3 = dataView(memory0).getInt32(ret + 8, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant4= {
            tag: 'err',
            val: result3
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant4;
      postReturn17(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    policy030AbiVersion = exports1['webhook:retry-policy/policy@0.3.0#abi-version'];
    policy030Plan = exports1['webhook:retry-policy/policy@0.3.0#plan'];
    policy030Delay = exports1['webhook:retry-policy/policy@0.3.0#delay'];
    policy030ClassifyStatus = exports1['webhook:retry-policy/policy@0.3.0#classify-status'];
    policy030ClassifyError = exports1['webhook:retry-policy/policy@0.3.0#classify-error'];
    policy030BudgetAllows = exports1['webhook:retry-policy/policy@0.3.0#budget-allows'];
    policy030LoadDocument = exports1['webhook:retry-policy/policy@0.3.0#load-document'];
    policy030Admit = exports1['webhook:retry-policy/policy@0.3.0#admit'];
    policy030Evaluate = exports1['webhook:retry-policy/policy@0.3.0#evaluate'];
    policy030Settle = exports1['webhook:retry-policy/policy@0.3.0#settle'];
    policy030Resume = exports1['webhook:retry-policy/policy@0.3.0#resume'];
    policy030ParseRetryAfter = exports1['webhook:retry-policy/policy@0.3.0#parse-retry-after'];
    policy030StoreKey = exports1['webhook:retry-policy/policy@0.3.0#store-key'];
    policy030StoreApply = exports1['webhook:retry-policy/policy@0.3.0#store-apply'];
    policy030Decide = exports1['webhook:retry-policy/policy@0.3.0#decide'];
    policy030DecideWith = exports1['webhook:retry-policy/policy@0.3.0#decide-with'];
    policy030Compile = exports1['webhook:retry-policy/policy@0.3.0#compile'];
    policy030Discard = exports1['webhook:retry-policy/policy@0.3.0#discard'];
    policy030AdmitCompiled = exports1['webhook:retry-policy/policy@0.3.0#admit-compiled'];
    policy030Advance = exports1['webhook:retry-policy/policy@0.3.0#advance'];
    policy030Finish = exports1['webhook:retry-policy/policy@0.3.0#finish'];
    policy030Gate = exports1['webhook:retry-policy/policy@0.3.0#gate'];
    policy030AfterProbe = exports1['webhook:retry-policy/policy@0.3.0#after-probe'];
    policy030SettleWake = exports1['webhook:retry-policy/policy@0.3.0#settle-wake'];
    policy030CallFor = exports1['webhook:retry-policy/policy@0.3.0#call-for'];
    policy030ApplyCall = exports1['webhook:retry-policy/policy@0.3.0#apply-call'];
    policy030LoadHealthDocument = exports1['webhook:retry-policy/policy@0.3.0#load-health-document'];
    policy030Pace = exports1['webhook:retry-policy/policy@0.3.0#pace'];
    policy030NormalPerS = exports1['webhook:retry-policy/policy@0.3.0#normal-per-s'];
    policy030HealthOutcomeOf = exports1['webhook:retry-policy/policy@0.3.0#health-outcome-of'];
    policy030PauseUntil = exports1['webhook:retry-policy/policy@0.3.0#pause-until'];
    policy030EngineOpen = exports1['webhook:retry-policy/policy@0.3.0#engine-open'];
    policy030EngineFeed = exports1['webhook:retry-policy/policy@0.3.0#engine-feed'];
    policy030EngineResume = exports1['webhook:retry-policy/policy@0.3.0#engine-resume'];
    policy030EngineClose = exports1['webhook:retry-policy/policy@0.3.0#engine-close'];
    policy030ReadTarget = exports1['webhook:retry-policy/policy@0.3.0#read-target'];
    policy030DestinationRefusal = exports1['webhook:retry-policy/policy@0.3.0#destination-refusal'];
    const policy030 = {
      abiVersion: abiVersion,
      admit: admit,
      admitCompiled: admitCompiled,
      advance: advance,
      afterProbe: afterProbe,
      applyCall: applyCall,
      budgetAllows: budgetAllows,
      callFor: callFor,
      classifyError: classifyError,
      classifyStatus: classifyStatus,
      compile: compile,
      decide: decide,
      decideWith: decideWith,
      delay: delay,
      destinationRefusal: destinationRefusal,
      discard: discard,
      engineClose: engineClose,
      engineFeed: engineFeed,
      engineOpen: engineOpen,
      engineResume: engineResume,
      evaluate: evaluate,
      finish: finish,
      gate: gate,
      healthOutcomeOf: healthOutcomeOf,
      loadDocument: loadDocument,
      loadHealthDocument: loadHealthDocument,
      normalPerS: normalPerS,
      pace: pace,
      parseRetryAfter: parseRetryAfter,
      pauseUntil: pauseUntil,
      plan: plan,
      readTarget: readTarget,
      resume: resume,
      settle: settle,
      settleWake: settleWake,
      storeApply: storeApply,
      storeKey: storeKey,
      
    };
    
    return { policy: policy030, 'webhook:retry-policy/policy@0.3.0': policy030,  };
  })();
  let promise, resolve, reject;
  function runNext (value) {
    try {
      let done;
      do {
        ({ value, done } = gen.next(value));
      } while (!(value instanceof Promise) && !done);
      if (done) {
        if (resolve) return resolve(value);
        else return value;
      }
      if (!promise) promise = new Promise((_resolve, _reject) => (resolve = _resolve, reject = _reject));
      value.then(nextVal => done ? resolve() : runNext(nextVal), reject);
    }
    catch (e) {
      if (reject) reject(e);
      else throw e;
    }
  }
  const maybeSyncReturn = runNext(null);
  return promise || maybeSyncReturn;
}

// jco's adapter modules (import trampolines), by the name `instantiate` asks for.
const ADAPTERS = {
  "retry_policy.core2.wasm": "AGFzbQEAAAABDwFgC39/f35+fH5+f35/AAMCAQAEBQFwAQEBBxACATAAAAgkaW1wb3J0cwEACh8BHQAgACABIAIgAyAEIAUgBiAHIAggCSAKQQARAAALAC8JcHJvZHVjZXJzAQxwcm9jZXNzZWQtYnkBDXdpdC1jb21wb25lbnQHMC4yNDUuMQ==",
  "retry_policy.core3.wasm": "AGFzbQEAAAABDwFgC39/f35+fH5+f35/AAIVAgABMAAAAAgkaW1wb3J0cwFwAQEBCQcBAEEACwEAAC8JcHJvZHVjZXJzAQxwcm9jZXNzZWQtYnkBDXdpdC1jb21wb25lbnQHMC4yNDUuMQ=="
};
module.exports = { instantiate, ADAPTERS };
