// Package handlers holds what kube-apiserver's
// k8s.io/apiserver/pkg/endpoints/handlers/patch.go does to apply a
// patch, copied step for step and in a package of the same name, so that
// Go's messages naming its types (`[]handlers.jsonPatchOp`) read the same.
package handlers

import (
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"
)

const maxJSONPatchOperations = 10000

type jsonPatchOp struct {
	Op    string      `json:"op"`
	Path  string      `json:"path"`
	From  string      `json:"from"`
	Value interface{} `json:"value"`
}

// applyJSPatch is patch.go's jsonPatcher.applyJSPatch.
func ApplyJSPatch(patchType, directive string, patchBytes, versionedJS []byte) (patchedJS []byte, strictErrors []error, retErr error) {
	switch patchType {
	case "json":
		if directive == metav1.FieldValidationStrict || directive == metav1.FieldValidationWarn {
			var v []jsonPatchOp
			var err error
			if strictErrors, err = kjson.UnmarshalStrict(patchBytes, &v); err != nil {
				return nil, nil, errors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
			for i, e := range strictErrors {
				strictErrors[i] = fmt.Errorf("json patch %v", e)
			}
		}
		patchObj, err := jsonpatch.DecodePatch(patchBytes)
		if err != nil {
			return nil, nil, errors.NewBadRequest(err.Error())
		}
		if len(patchObj) > maxJSONPatchOperations {
			return nil, nil, errors.NewRequestEntityTooLargeError(
				fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d",
					maxJSONPatchOperations, len(patchObj)))
		}
		patchedJS, err := patchObj.Apply(versionedJS)
		if err != nil {
			return nil, nil, errors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
		return patchedJS, strictErrors, nil
	default:
		if directive == metav1.FieldValidationStrict || directive == metav1.FieldValidationWarn {
			v := map[string]interface{}{}
			var err error
			strictErrors, err = kjson.UnmarshalStrict(patchBytes, &v)
			if err != nil {
				return nil, nil, errors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
		}
		patchedJS, retErr = jsonpatch.MergePatch(versionedJS, patchBytes)
		if retErr == jsonpatch.ErrBadJSONPatch {
			return nil, nil, errors.NewBadRequest(retErr.Error())
		}
		return patchedJS, strictErrors, retErr
	}
}

// interpretStrategicMergePatchError is patch.go's.
func interpretStrategicMergePatchError(err error) error {
	switch err {
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys, mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return errors.NewBadRequest(err.Error())
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		return errors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	default:
		return err
	}
}

// strategicPatch is patch.go's strategicPatchObject and applyPatchToObject
// up to the patched map (its decoding into the Go type is the caller's).
func StrategicPatch(directive string, original map[string]interface{}, patchBytes []byte, schemaReferenceObj runtime.Object) (map[string]interface{}, []error, error) {
	patchMap := make(map[string]interface{})
	var strictErrs []error
	var err error
	if directive == metav1.FieldValidationWarn || directive == metav1.FieldValidationStrict {
		strictErrs, err = kjson.UnmarshalStrict(patchBytes, &patchMap)
		if err != nil {
			return nil, nil, errors.NewBadRequest(err.Error())
		}
	} else {
		if err = kjson.UnmarshalCaseSensitivePreserveInts(patchBytes, &patchMap); err != nil {
			return nil, nil, errors.NewBadRequest(err.Error())
		}
	}
	patched, err := strategicpatch.StrategicMergeMapPatch(original, patchMap, schemaReferenceObj)
	if err != nil {
		return nil, nil, interpretStrategicMergePatchError(err)
	}
	return patched, strictErrs, nil
}
