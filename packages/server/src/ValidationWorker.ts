// The validation worker thread of the bundled `gatehouse` program. The bundled core starts its worker as
// `new URL("./ValidationWorker.js", import.meta.url)`, i.e. next to the bundle's own chunks: this entry puts it
// there, built from core's worker module with the same bundled effect as the program.
import "@gatehouse-edge/core/validation-worker"
