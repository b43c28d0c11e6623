{{- define "type" -}}
{{- $type := . -}}
{{- if markdownShouldRenderType $type -}}

#### {{ $type.Name }}

{{ if $type.IsAlias }}_Underlying type:_ _{{ markdownRenderTypeLink $type.UnderlyingType  }}_{{ end }}

{{ template "doc" $type.Doc }}

{{ if $type.Validation -}}
_Validation:_
{{- range $type.Validation }}
- {{ . }}
{{- end }}
{{- end }}

{{ if $type.References -}}
_Appears in:_
{{- range $type.SortedReferences }}
- {{ markdownRenderTypeLink . }}
{{- end }}
{{- end }}

{{ if $type.Members -}}
| Field | Description | Default | Validation |
| --- | --- | --- | --- |
{{ if $type.GVK -}}
| `apiVersion` _string_ | `{{ $type.GVK.Group }}/{{ $type.GVK.Version }}` | | |
| `kind` _string_ | `{{ $type.GVK.Kind }}` | | |
{{ end -}}

{{ range $type.Members -}}
| `{{ .Name  }}` _{{ markdownRenderType .Type }}_ | {{ template "type_members" . }} | {{ template "default" .Default }} | {{ template "validation" .Validation }} |
{{ end -}}

{{ end -}}

{{ if $type.EnumValues -}}
| Value | Description |
| --- | --- |
{{ range $type.EnumValues -}}
| `{{ .Name }}` | {{ .Doc | replace "<" "&lt;" | replace ">" "&gt;" | markdownRenderFieldDoc }} |
{{ end -}}
{{ end -}}


{{- end -}}
{{- end -}}

{{- /* default shows a +kubebuilder:default as code; crd-ref-docs prints
       objects as Go maps ("map[name:load type:Load]", "{  }"). */ -}}
{{- define "default" -}}
{{- with . -}}
`{{ regexReplaceAll "map\\[([^\\]]*)\\]" (replace "{  }" "{}" .) "{${1}}" }}`
{{- end -}}
{{- end -}}

{{- /* validation lists a field's markers, "Required" instead of
       "Required: {}", and leaves out "Optional: {}" (most fields are). */ -}}
{{- define "validation" -}}
{{- range . -}}
{{- if eq . "Required: {}" -}}Required <br />
{{- else if ne . "Optional: {}" -}}{{ markdownRenderFieldDoc . }} <br />
{{- end -}}
{{- end -}}
{{- end -}}
