/** An optional image for a search, read in the browser into the base64 data URL the API accepts. */
import { useState } from "preact/hooks";
import { Field } from "./Field.tsx";

interface ImagePickerProps {
  value: string | null;
  onChange: (dataUrl: string | null) => void;
  errors?: string[];
}

export function ImagePicker({ value, onChange, errors = [] }: ImagePickerProps) {
  const [problem, setProblem] = useState("");
  const [name, setName] = useState("");
  // Remounting the file input is the only way to empty it after "Remove image".
  const [round, setRound] = useState(0);
  const read = (input: HTMLInputElement) => {
    const file = input.files?.[0];
    setProblem("");
    if (!file) return;
    if (!/^image\/(png|jpeg|gif|webp)$/.test(file.type)) {
      setProblem("Choose a PNG, JPEG, GIF or WebP image.");
      input.value = "";
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      setName(file.name);
      onChange(String(reader.result));
    };
    reader.onerror = () => setProblem("The file could not be read.");
    reader.readAsDataURL(file);
  };
  const clear = () => {
    setName("");
    setRound((n) => n + 1);
    onChange(null);
  };
  return (
    <div class="image-picker">
      <Field
        label="Image (optional)"
        hint="PNG, JPEG, GIF or WebP; sent with the prompt as base64."
        errors={problem ? [problem, ...errors] : errors}
      >
        {(control) => (
          <input
            key={round}
            {...control}
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            onChange={(e) => read(e.currentTarget)}
          />
        )}
      </Field>
      {value ? (
        <div class="image-preview">
          <img src={value} alt={`Chosen file${name ? `: ${name}` : ""}`} />
          <button type="button" class="secondary small" onClick={clear}>
            Remove image
          </button>
        </div>
      ) : null}
    </div>
  );
}
