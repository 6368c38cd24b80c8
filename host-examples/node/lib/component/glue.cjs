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
  
  // faster-glue: views kept per memory, rebuilt when it grew (its old buffer detached)
  let dv = new DataView(new ArrayBuffer());
  let u8 = new Uint8Array(0);
  let viewsOf = null;
  function views(mem) {
    viewsOf = mem;
    dv = new DataView(mem.buffer);
    u8 = new Uint8Array(dv.buffer);
  }
  const dataView = mem => (viewsOf === mem && u8.length !== 0 ? dv : (views(mem), dv));
  const bytes = mem => (viewsOf === mem && u8.length !== 0 ? u8 : (views(mem), u8));
  // faster-glue: a u64 store; a non-negative safe integer number as its two 32-bit halves
  function setU64(view, ptr, val) {
    if (typeof val === 'number' && val >= 0 && val <= 9007199254740991 && Number.isInteger(val)) {
      view.setUint32(ptr, val >>> 0, true);
      view.setUint32(ptr + 4, Math.floor(val / 4294967296), true);
    } else {
      view.setBigInt64(ptr, toUint64(val), true);
    }
  }
  
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
    // faster-glue: a short ASCII string written byte by byte into the guest's allocation
    const n = s.length;
    if (n <= 256) {
      let i = 0;
      while (i < n && s.charCodeAt(i) < 0x80) i++;
      if (i === n) {
        const ptr = realloc(0, 0, 1, n);
        const mem = bytes(memory);
        for (let j = 0; j < n; j++) mem[ptr + j] = s.charCodeAt(j);
        utf8EncodedLen = n;
        return ptr;
      }
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
          setU64(dataView(memory0), arg10 + 16, v5_0);
          setU64(dataView(memory0), arg10 + 24, v5_1);
          var {total: v6_0, retries: v6_1 } = v4_1;
          setU64(dataView(memory0), arg10 + 32, v6_0);
          setU64(dataView(memory0), arg10 + 40, v6_1);
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
    ({ exports: exports0 } = instantiateCore(module1));
    ({ exports: exports1 } = instantiateCore(module0, {
      'webhook:retry-policy/budget-store@1.0.0': {
        call: exports0['0'],
      },
      'webhook:retry-policy/clock@1.0.0': {
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
    postReturn0 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#plan'];
    postReturn1 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#classify-status'];
    postReturn2 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#load-document'];
    postReturn3 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#admit'];
    postReturn4 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#evaluate'];
    postReturn5 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#decide'];
    postReturn6 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#store-key'];
    postReturn7 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#load-health-document'];
    postReturn8 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#engine-open'];
    postReturn9 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#engine-feed'];
    postReturn10 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#read-target'];
    postReturn11 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#destination-refusal'];
    postReturn12 = exports1['cabi_post_webhook:retry-policy/policy@1.0.0#metrics-schema'];
    let policy100AbiVersion;
    
    function abiVersion() {
      const ret = policy100AbiVersion();
      return ret >>> 0;
    }
    let policy100Plan;
    
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
      const ret = policy100Plan(toUint64(v0_0), +v0_1, toUint64(v0_2), enum1, toUint64(arg1), toUint32(arg2));
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
    let policy100ClassifyStatus;
    
    function classifyStatus(arg0) {
      const ret = policy100ClassifyStatus(toUint16(arg0));
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
      postReturn1(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100ClassifyError;
    
    function classifyError(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy100ClassifyError(ptr0, len0);
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
    let policy100LoadDocument;
    
    function loadDocument(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy100LoadDocument(ptr0, len0);
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
      postReturn2(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100Admit;
    
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
        setU64(dataView(memory0), base + 8, v5_0);
        dataView(memory0).setFloat64(base + 16, +v5_1, true);
        setU64(dataView(memory0), base + 24, v5_2);
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
        setU64(dataView(memory0), base + 40, v4_1);
        dataView(memory0).setInt32(base + 48, toUint32(v4_2), true);
        var {ratio: v7_0, windowMs: v7_1, minSample: v7_2, sliding: v7_3 } = v4_3;
        dataView(memory0).setFloat64(base + 56, +v7_0, true);
        setU64(dataView(memory0), base + 64, v7_1);
        setU64(dataView(memory0), base + 72, v7_2);
        dataView(memory0).setInt8(base + 80, v7_3 ? 1 : 0, true);
      }
      var ptr9 = utf8Encode(arg1, realloc0, memory0);
      var len9 = utf8EncodedLen;
      const ret = policy100Admit(ptr1, len1, result8, len8, ptr9, len9, toUint64(arg2));
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
      postReturn3(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100Evaluate;
    
    function evaluate(arg0, arg1, arg2, arg3) {
      var ptr0 = realloc0(0, 0, 8, 160);
      var {backoff: v1_0, windowMs: v1_1, hardCap: v1_2, budget: v1_3 } = arg0;
      var {baseMs: v2_0, factor: v2_1, capMs: v2_2, jitter: v2_3 } = v1_0;
      setU64(dataView(memory0), ptr0 + 0, v2_0);
      dataView(memory0).setFloat64(ptr0 + 8, +v2_1, true);
      setU64(dataView(memory0), ptr0 + 16, v2_2);
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
      setU64(dataView(memory0), ptr0 + 32, v1_1);
      dataView(memory0).setInt32(ptr0 + 40, toUint32(v1_2), true);
      var {ratio: v4_0, windowMs: v4_1, minSample: v4_2, sliding: v4_3 } = v1_3;
      dataView(memory0).setFloat64(ptr0 + 48, +v4_0, true);
      setU64(dataView(memory0), ptr0 + 56, v4_1);
      setU64(dataView(memory0), ptr0 + 64, v4_2);
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
      setU64(dataView(memory0), ptr0 + 104, v5_4);
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
            setU64(dataView(memory0), ptr0 + 144, e);
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
      setU64(dataView(memory0), ptr0 + 152, arg3);
      const ret = policy100Evaluate(ptr0);
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
      postReturn4(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100Settle;
    
    function settle(arg0, arg1, arg2, arg3, arg4) {
      var ptr0 = realloc0(0, 0, 8, 208);
      var {backoff: v1_0, windowMs: v1_1, hardCap: v1_2, budget: v1_3 } = arg0;
      var {baseMs: v2_0, factor: v2_1, capMs: v2_2, jitter: v2_3 } = v1_0;
      setU64(dataView(memory0), ptr0 + 0, v2_0);
      dataView(memory0).setFloat64(ptr0 + 8, +v2_1, true);
      setU64(dataView(memory0), ptr0 + 16, v2_2);
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
      setU64(dataView(memory0), ptr0 + 32, v1_1);
      dataView(memory0).setInt32(ptr0 + 40, toUint32(v1_2), true);
      var {ratio: v4_0, windowMs: v4_1, minSample: v4_2, sliding: v4_3 } = v1_3;
      dataView(memory0).setFloat64(ptr0 + 48, +v4_0, true);
      setU64(dataView(memory0), ptr0 + 56, v4_1);
      setU64(dataView(memory0), ptr0 + 64, v4_2);
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
      setU64(dataView(memory0), ptr0 + 104, v5_4);
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
            setU64(dataView(memory0), ptr0 + 144, e);
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
      setU64(dataView(memory0), ptr0 + 152, arg3);
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
          setU64(dataView(memory0), ptr0 + 176, v14_0);
          setU64(dataView(memory0), ptr0 + 184, v14_1);
          var {total: v15_0, retries: v15_1 } = v13_1;
          setU64(dataView(memory0), ptr0 + 192, v15_0);
          setU64(dataView(memory0), ptr0 + 200, v15_1);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant16.tag)}\` (received \`${variant16}\`) specified for \`StoreReply\``);
        }
      }
      const ret = policy100Settle(ptr0);
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
      postReturn5(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100ParseRetryAfter;
    
    function parseRetryAfter(arg0, arg1) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy100ParseRetryAfter(ptr0, len0, toUint64(arg1));
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
    let policy100StoreKey;
    
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
      const ret = policy100StoreKey(enum1, ptr2, len2, toUint64(v0_2), toUint64(v0_3));
      var ptr3 = dataView(memory0).getInt32(ret + 0, true);
      var len3 = dataView(memory0).getInt32(ret + 4, true);
      var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
      const retVal = result3;
      postReturn6(ret);
      return retVal;
    }
    let policy100StoreApply;
    
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
      const ret = policy100StoreApply(enum1, ptr2, len2, toUint64(v0_2), toUint64(v0_3), +v3_0, toUint64(v3_1), toUint64(v3_2), v3_3 ? 1 : 0, toUint64(arg2), toUint64(v4_0), toUint64(v5_0), toUint64(v5_1), toUint64(v6_0), toUint64(v6_1));
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
    let policy100Decide;
    
    function decide(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 152);
      var {backoff: v1_0, windowMs: v1_1, hardCap: v1_2, budget: v1_3 } = arg0;
      var {baseMs: v2_0, factor: v2_1, capMs: v2_2, jitter: v2_3 } = v1_0;
      setU64(dataView(memory0), ptr0 + 0, v2_0);
      dataView(memory0).setFloat64(ptr0 + 8, +v2_1, true);
      setU64(dataView(memory0), ptr0 + 16, v2_2);
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
      setU64(dataView(memory0), ptr0 + 32, v1_1);
      dataView(memory0).setInt32(ptr0 + 40, toUint32(v1_2), true);
      var {ratio: v4_0, windowMs: v4_1, minSample: v4_2, sliding: v4_3 } = v1_3;
      dataView(memory0).setFloat64(ptr0 + 48, +v4_0, true);
      setU64(dataView(memory0), ptr0 + 56, v4_1);
      setU64(dataView(memory0), ptr0 + 64, v4_2);
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
      setU64(dataView(memory0), ptr0 + 104, v5_4);
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
            setU64(dataView(memory0), ptr0 + 144, e);
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
      const ret = policy100Decide(ptr0);
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
      postReturn5(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100LoadHealthDocument;
    
    function loadHealthDocument(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy100LoadHealthDocument(ptr0, len0);
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
      postReturn7(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100EngineOpen;
    
    function engineOpen(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy100EngineOpen(ptr0, len0);
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
      postReturn8(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100EngineFeed;
    
    function engineFeed(arg0, arg1) {
      var ptr0 = utf8Encode(arg1, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy100EngineFeed(toUint32(arg0), ptr0, len0);
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
      postReturn9(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100EngineResume;
    
    function engineResume(arg0, arg1, arg2) {
      var val0 = arg2;
      var len0 = val0.byteLength;
      var ptr0 = realloc0(0, 0, 1, len0 * 1);
      var src0 = new Uint8Array(val0.buffer || val0, val0.byteOffset, len0 * 1);
      (new Uint8Array(memory0.buffer, ptr0, len0 * 1)).set(src0);
      const ret = policy100EngineResume(toUint32(arg0), toUint64(arg1), ptr0, len0);
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
      postReturn9(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100EngineClose;
    
    function engineClose(arg0) {
      policy100EngineClose(toUint32(arg0));
    }
    let policy100ReadTarget;
    
    function readTarget(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy100ReadTarget(ptr0, len0);
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
      postReturn10(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100DestinationRefusal;
    
    function destinationRefusal(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy100DestinationRefusal(ptr0, len0);
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
      postReturn11(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100RolloutOpen;
    
    function rolloutOpen(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy100RolloutOpen(ptr0, len0);
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
      postReturn9(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100RolloutStep;
    
    function rolloutStep(arg0, arg1) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      var ptr1 = utf8Encode(arg1, realloc0, memory0);
      var len1 = utf8EncodedLen;
      const ret = policy100RolloutStep(ptr0, len0, ptr1, len1);
      let variant4;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr2 = dataView(memory0).getInt32(ret + 4, true);
          var len2 = dataView(memory0).getInt32(ret + 8, true);
          var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
          variant4= {
            tag: 'ok',
            val: result2
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
      postReturn9(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100ReplicaArgs;
    
    function replicaArgs(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy100ReplicaArgs(ptr0, len0);
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
      postReturn9(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy100MetricsSchema;
    
    function metricsSchema() {
      const ret = policy100MetricsSchema();
      var len10 = dataView(memory0).getInt32(ret + 4, true);
      var base10 = dataView(memory0).getInt32(ret + 0, true);
      var result10 = [];
      for (let i = 0; i < len10; i++) {
        const base = base10 + i * 40;
        var ptr0 = dataView(memory0).getInt32(base + 0, true);
        var len0 = dataView(memory0).getInt32(base + 4, true);
        var result0 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr0, len0));
        let enum1;
        switch (dataView(memory0).getUint8(base + 8, true)) {
          case 0: {
            enum1 = 'counter';
            break;
          }
          case 1: {
            enum1 = 'gauge';
            break;
          }
          case 2: {
            enum1 = 'histogram';
            break;
          }
          default: {
            throw new TypeError('invalid discriminant specified for MetricType');
          }
        }
        var ptr2 = dataView(memory0).getInt32(base + 12, true);
        var len2 = dataView(memory0).getInt32(base + 16, true);
        var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
        var len7 = dataView(memory0).getInt32(base + 24, true);
        var base7 = dataView(memory0).getInt32(base + 20, true);
        var result7 = [];
        for (let i = 0; i < len7; i++) {
          const base = base7 + i * 20;
          var ptr3 = dataView(memory0).getInt32(base + 0, true);
          var len3 = dataView(memory0).getInt32(base + 4, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          let variant6;
          switch (dataView(memory0).getUint8(base + 8, true)) {
            case 0: {
              variant6 = undefined;
              break;
            }
            case 1: {
              var len5 = dataView(memory0).getInt32(base + 16, true);
              var base5 = dataView(memory0).getInt32(base + 12, true);
              var result5 = [];
              for (let i = 0; i < len5; i++) {
                const base = base5 + i * 8;
                var ptr4 = dataView(memory0).getInt32(base + 0, true);
                var len4 = dataView(memory0).getInt32(base + 4, true);
                var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
                result5.push(result4);
              }
              variant6 = result5;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          result7.push({
            name: result3,
            values: variant6,
          });
        }
        var ptr8 = dataView(memory0).getInt32(base + 28, true);
        var len8 = dataView(memory0).getInt32(base + 32, true);
        var result8 = new Float64Array(memory0.buffer.slice(ptr8, ptr8 + len8 * 8));
        let enum9;
        switch (dataView(memory0).getUint8(base + 36, true)) {
          case 0: {
            enum9 = 'engine';
            break;
          }
          case 1: {
            enum9 = 'host';
            break;
          }
          default: {
            throw new TypeError('invalid discriminant specified for MovedBy');
          }
        }
        result10.push({
          name: result0,
          type: enum1,
          help: result2,
          labels: result7,
          bucketsS: result8,
          movedBy: enum9,
        });
      }
      const retVal = result10;
      postReturn12(ret);
      return retVal;
    }
    let policy100VectorCase;
    
    function vectorCase(arg0, arg1) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      var ptr1 = utf8Encode(arg1, realloc0, memory0);
      var len1 = utf8EncodedLen;
      const ret = policy100VectorCase(ptr0, len0, ptr1, len1);
      let variant3;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant3= {
            tag: 'ok',
            val: undefined
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
      postReturn8(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    policy100AbiVersion = exports1['webhook:retry-policy/policy@1.0.0#abi-version'];
    policy100Plan = exports1['webhook:retry-policy/policy@1.0.0#plan'];
    policy100ClassifyStatus = exports1['webhook:retry-policy/policy@1.0.0#classify-status'];
    policy100ClassifyError = exports1['webhook:retry-policy/policy@1.0.0#classify-error'];
    policy100LoadDocument = exports1['webhook:retry-policy/policy@1.0.0#load-document'];
    policy100Admit = exports1['webhook:retry-policy/policy@1.0.0#admit'];
    policy100Evaluate = exports1['webhook:retry-policy/policy@1.0.0#evaluate'];
    policy100Settle = exports1['webhook:retry-policy/policy@1.0.0#settle'];
    policy100ParseRetryAfter = exports1['webhook:retry-policy/policy@1.0.0#parse-retry-after'];
    policy100StoreKey = exports1['webhook:retry-policy/policy@1.0.0#store-key'];
    policy100StoreApply = exports1['webhook:retry-policy/policy@1.0.0#store-apply'];
    policy100Decide = exports1['webhook:retry-policy/policy@1.0.0#decide'];
    policy100LoadHealthDocument = exports1['webhook:retry-policy/policy@1.0.0#load-health-document'];
    policy100EngineOpen = exports1['webhook:retry-policy/policy@1.0.0#engine-open'];
    policy100EngineFeed = exports1['webhook:retry-policy/policy@1.0.0#engine-feed'];
    policy100EngineResume = exports1['webhook:retry-policy/policy@1.0.0#engine-resume'];
    policy100EngineClose = exports1['webhook:retry-policy/policy@1.0.0#engine-close'];
    policy100ReadTarget = exports1['webhook:retry-policy/policy@1.0.0#read-target'];
    policy100DestinationRefusal = exports1['webhook:retry-policy/policy@1.0.0#destination-refusal'];
    policy100RolloutOpen = exports1['webhook:retry-policy/policy@1.0.0#rollout-open'];
    policy100RolloutStep = exports1['webhook:retry-policy/policy@1.0.0#rollout-step'];
    policy100ReplicaArgs = exports1['webhook:retry-policy/policy@1.0.0#replica-args'];
    policy100MetricsSchema = exports1['webhook:retry-policy/policy@1.0.0#metrics-schema'];
    policy100VectorCase = exports1['webhook:retry-policy/policy@1.0.0#vector-case'];
    const policy100 = {
      abiVersion: abiVersion,
      admit: admit,
      classifyError: classifyError,
      classifyStatus: classifyStatus,
      decide: decide,
      destinationRefusal: destinationRefusal,
      engineClose: engineClose,
      engineFeed: engineFeed,
      engineOpen: engineOpen,
      engineResume: engineResume,
      evaluate: evaluate,
      loadDocument: loadDocument,
      loadHealthDocument: loadHealthDocument,
      metricsSchema: metricsSchema,
      parseRetryAfter: parseRetryAfter,
      plan: plan,
      readTarget: readTarget,
      replicaArgs: replicaArgs,
      rolloutOpen: rolloutOpen,
      rolloutStep: rolloutStep,
      settle: settle,
      storeApply: storeApply,
      storeKey: storeKey,
      vectorCase: vectorCase,
      
    };
    
    return { policy: policy100, 'webhook:retry-policy/policy@1.0.0': policy100,  };
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
