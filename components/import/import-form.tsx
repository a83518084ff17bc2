"use client";

import { useActionState, useEffect, useId, useState, type DragEvent } from "react";
import { importAction, previewImportAction } from "@/app/import/actions";
import { buttonClass } from "@/components/ui/button";
import { CONFIRM_DIALOG_CLASS } from "@/components/ui/confirm-action";
import { Field, inputClass } from "@/components/ui/field";
import { useModalDialog } from "@/components/ui/use-modal-dialog";
import { idleFormState, withoutPreviousState } from "@/lib/form-state";
import { EXAMPLE_DOCUMENTS } from "@/lib/formats/examples";
import type { ImportPreview as Preview } from "@/lib/formats/preview-import";
import { FORMAT_LABELS } from "@/lib/formats/types";
import { MAX_PROJECT_LENGTH, SOURCE_FORMATS } from "@/lib/handoffs/schemas";
import { utf8TextOf } from "@/lib/utf8";
import { FieldErrorList, ImportPreview } from "./import-preview";

const PREVIEW_DELAY_MS = 250;

type SourceFormat = (typeof SOURCE_FORMATS)[number];

/** Paste, drop or choose a document (or name a stored bundle); the preview follows as you type. */
export function ImportForm() {
  const [state, formAction, pending] = useActionState(withoutPreviousState(importAction), idleFormState);
  const [text, setText] = useState(state.values?.text ?? "");
  const [fileName, setFileName] = useState(state.values?.fileName ?? "");
  const [format, setFormat] = useState(state.values?.format ?? "");
  const [artifactId, setArtifactId] = useState(state.values?.artifactId ?? "");
  const [preview, setPreview] = useState<Preview | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const empty = text.trim() === "" && artifactId.trim() === "";
  // An example replaces the Document field: a document of the operator's own there is asked about first (it has no undo).
  const [replacing, setReplacing] = useState<SourceFormat | null>(null);
  const replaceDialog = useModalDialog();
  const replaceHeadingId = useId();

  function showExample(example: SourceFormat) {
    setText(EXAMPLE_DOCUMENTS[example].text);
    setFileName(EXAMPLE_DOCUMENTS[example].fileName);
    setArtifactId("");
  }

  function askForExample(example: SourceFormat) {
    if (text.trim() === "" || Object.values(EXAMPLE_DOCUMENTS).some((document) => document.text === text)) return showExample(example);
    setReplacing(example);
    replaceDialog.ref.current?.showModal();
  }

  useEffect(() => {
    if (empty) return;
    let current = true;
    const timer = setTimeout(() => {
      previewImportAction({ text, fileName, format, artifactId }).then(
        (answer) => current && setPreview(answer),
        () => current && setPreview({ ok: false, message: "preview failed", fieldErrors: { "(document)": ["the server could not preview it; try again"] } }),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text, fileName, format, artifactId, empty]);

  /** A chosen or dropped file, read as UTF-8 strictly: `file.text()` put U+FFFD for each byte of a Latin-1 file, and that was imported. */
  async function load(file: File | undefined) {
    if (!file) return;
    const read = utf8TextOf(await file.arrayBuffer());
    if (read === null) {
      setFileError(`${file.name} is not UTF-8 text (Latin-1 or UTF-16?); save it as UTF-8 and choose it again`);
      return;
    }
    setFileError(null);
    setText(read);
    setFileName(file.name);
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    void load(event.dataTransfer.files[0]);
  }

  return (
    <>
      <form action={formAction} className="flex flex-col gap-4" noValidate>
        <div className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
          <span>Try an example from the seeds:</span>
          {SOURCE_FORMATS.map((example) => (
            <button
              key={example}
              type="button"
              className={buttonClass("secondary")}
              onClick={() => askForExample(example)}
            >
              {FORMAT_LABELS[example]}
            </button>
          ))}
        </div>
        <div data-testid="drop-zone" onDragOver={(event) => event.preventDefault()} onDrop={onDrop} className="rounded-lg border-2 border-dashed border-slate-300 bg-white p-3">
          <Field id="text" label="Document" hint="Paste a rip context bundle, a handoff.json or a handoff.yaml, or drop its file here.">
            <textarea
              id="text"
              name="text"
              rows={12}
              value={text}
              onChange={(event) => setText(event.target.value)}
              aria-describedby="text-hint"
              spellCheck={false}
              className={`${inputClass} font-mono text-xs`}
            />
          </Field>
        </div>
        <input type="hidden" name="fileName" value={fileName} />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id="file" label="Or choose a file" errors={fileError ? [fileError] : undefined} hint={fileName ? `Loaded ${fileName}` : "A .json, .yaml or .yml file."}>
            <input
              id="file"
              type="file"
              accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml"
              onChange={(event) => void load(event.target.files?.[0])}
              aria-describedby="file-hint file-error"
              aria-invalid={fileError !== null}
              className="text-sm"
            />
          </Field>
          <Field id="format" label="Format" hint="Detected from the document unless you choose one.">
            <select id="format" name="format" value={format} onChange={(event) => setFormat(event.target.value)} aria-describedby="format-hint" className={inputClass}>
              <option value="">Detect automatically</option>
              {SOURCE_FORMATS.map((option) => (
                <option key={option} value={option}>
                  {FORMAT_LABELS[option]}
                </option>
              ))}
            </select>
          </Field>
          <Field id="artifactId" label="Or a stored bundle's artifact ID" hint="64 hexadecimal characters, from “Export bundle” or a closed thread.">
            <input
              id="artifactId"
              name="artifactId"
              value={artifactId}
              onChange={(event) => setArtifactId(event.target.value)}
              aria-describedby="artifactId-hint"
              className={`${inputClass} font-mono`}
            />
          </Field>
          <Field id="project" label="Project (optional)" errors={state.fieldErrors?.project} hint="A tag for the new thread, e.g. hlg.">
            <input id="project" name="project" maxLength={MAX_PROJECT_LENGTH} defaultValue={state.values?.project} aria-describedby="project-hint project-error" className={`${inputClass} font-mono`} />
          </Field>
        </div>
        <div aria-live="polite" className="flex flex-col gap-3">
          {state.status === "error" && state.fieldErrors && <FieldErrorList fieldErrors={state.fieldErrors} title={state.message ?? "Nothing was imported"} />}
          {!empty && preview && <ImportPreview preview={preview} />}
        </div>
        <div>
          <button type="submit" disabled={pending || empty || preview?.ok === false} className={buttonClass("primary")}>
            {pending ? "Importing…" : "Import as a new handoff"}
          </button>
        </div>
      </form>
      <dialog
        {...replaceDialog.dialogProps}
        aria-labelledby={replaceHeadingId}
        onClose={() => setReplacing(null)}
        className={CONFIRM_DIALOG_CLASS}
      >
        <div className="flex flex-col gap-3 p-5">
          <h2 id={replaceHeadingId} className="text-lg font-semibold text-slate-900">
            Replace your document?
          </h2>
          <p className="text-sm text-slate-700">
            The Document field holds text of your own. The {replacing && FORMAT_LABELS[replacing]} example replaces it, and it cannot be brought back.
          </p>
          <div className="flex flex-wrap justify-end gap-2">
            <button type="button" {...replaceDialog.closeProps} className={buttonClass("secondary")}>
              Keep my document
            </button>
            <button
              type="button"
              onClick={() => {
                if (replacing) showExample(replacing);
                replaceDialog.ref.current?.close();
              }}
              className={buttonClass("danger")}
            >
              Replace with the example
            </button>
          </div>
        </div>
      </dialog>
    </>
  );
}
